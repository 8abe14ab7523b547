# SPDX-License-Identifier: MIT
# Run by Blender (blender --background --factory-startup --python THIS):
# imports $GLB (a model.glb) at 30 frames a second, keeps the action of
# entry $ENTRY alone (the exporter writes every action an armature has;
# ENTRY=all keeps them all, an animation each),
# optionally turns bone $BONE by $DEGREES about its own X axis at frame
# $FRAME only, and exports the glTF binary $OUT: what a modder's export
# of one changed pose is.
import math
import os

import bpy
import mathutils

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.context.scene.render.fps = 30
bpy.ops.import_scene.gltf(filepath=os.environ["GLB"], import_shading="FLAT")
arm = [o for o in bpy.data.objects if o.type == "ARMATURE"][0]
ad = arm.animation_data
every = os.environ["ENTRY"] == "all"  # every action, an animation each
want = "entry %03d" % (0 if every else int(os.environ["ENTRY"]))
keep = [a for a in bpy.data.actions if a.name == want or a.name.startswith(want + "_")][0]
for a in list(bpy.data.actions):
    if a != keep and not every:
        bpy.data.actions.remove(a)
for t in list(ad.nla_tracks):
    if not every:
        ad.nla_tracks.remove(t)
# Bones the action does not key are exported at the pose they are in:
# at rest, as model.glb leaves the joints of a part that keeps its clip.
for pb in arm.pose.bones:
    pb.location = (0, 0, 0)
    pb.rotation_quaternion = (1, 0, 0, 0)
    pb.scale = (1, 1, 1)
ad.action = keep
if os.environ.get("BONE"):
    path = 'pose.bones["%s"].rotation_quaternion' % os.environ["BONE"]
    frame = float(os.environ["FRAME"])
    curves = [keep.fcurves.find(path, index=i) for i in range(4)]
    points = [next(p for p in c.keyframe_points if abs(p.co[0] - frame) < 1e-3) for c in curves]
    q = mathutils.Quaternion([p.co[1] for p in points])
    q = q @ mathutils.Quaternion((1, 0, 0), math.radians(float(os.environ["DEGREES"])))
    for p, v in zip(points, q):
        p.co[1] = v
        p.handle_left[1] = p.handle_right[1] = v
    for c in curves:
        c.update()
bpy.context.scene.frame_start = 0
bpy.context.scene.frame_end = int(max(a.frame_range[1] for a in bpy.data.actions))
bpy.ops.export_scene.gltf(filepath=os.environ["OUT"], export_format="GLB",
                          export_animations=True)
print("EXPORTED", keep.name)
