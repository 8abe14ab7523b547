# SPDX-License-Identifier: MIT
# Run by Blender (blender --background --factory-startup --python THIS):
# imports $GLB (a model.glb), moves mesh vertex $VERTEX of the body by $DX
# along X, or ($DELETE set) deletes it, and exports the glTF binary $OUT
# without animations: what a modder's export of a reshaped body is.
import os

import bmesh
import bpy

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=os.environ["GLB"], import_shading="FLAT")
for a in list(bpy.data.actions):
    bpy.data.actions.remove(a)
body = [o for o in bpy.data.objects if o.type == "MESH" and o.name == "body"][0]
v = int(os.environ["VERTEX"])
if os.environ.get("DELETE"):
    bm = bmesh.new()
    bm.from_mesh(body.data)
    bm.verts.ensure_lookup_table()
    bmesh.ops.delete(bm, geom=[bm.verts[v]], context="VERTS")
    bm.to_mesh(body.data)
    bm.free()
else:
    body.data.vertices[v].co.x += float(os.environ["DX"])
bpy.ops.export_scene.gltf(filepath=os.environ["OUT"], export_format="GLB",
                          export_animations=False)
print("EXPORTED")
