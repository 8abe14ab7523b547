# SPDX-License-Identifier: MIT
# Renders a model.glb posed at one frame of one animation, headless:
#
#   blender --background --factory-startup --python tests/gen/picture.py -- \
#       MODEL.glb OUT.png "entry 001" FRAME
#
# The body (the PMO, with its textures), or where a PAC has none the
# stand-in mesh (an octahedron per joint, a spike from each parent, in a
# colour of bone), seen three-quarters from the front and above, orthographic, framed on
# the pose, lit by a sun, with Cycles on the CPU (Eevee and Workbench need
# an OpenGL context a headless machine lacks).
import math
import sys

import bpy
from mathutils import Vector

glb, out, action_name, frame = sys.argv[sys.argv.index('--') + 1:][:4]
frame = int(frame)

bpy.ops.wm.read_factory_settings(use_empty=True)
# Debian's Blender 3.4 importer fails on its own numpy with the default
# shading (it uses np.bool): FLAT takes another path.
bpy.ops.import_scene.gltf(filepath=glb, import_shading='FLAT')
scene = bpy.context.scene
armature = next(o for o in scene.objects if o.type == 'ARMATURE')
mesh = next(o for o in scene.objects if o.type == 'MESH')
if armature.animation_data is None:
    armature.animation_data_create()
armature.animation_data.action = bpy.data.actions[
    next(a.name for a in bpy.data.actions if a.name.startswith(action_name))]
# The importer may leave the other animations on NLA tracks: only ours plays.
for track in armature.animation_data.nla_tracks:
    track.mute = True
scene.frame_set(frame)

if mesh.name.startswith('stand-in'):
    material = bpy.data.materials.new('bone')
    material.use_nodes = True
    shader = material.node_tree.nodes['Principled BSDF']
    shader.inputs['Base Color'].default_value = (0.55, 0.22, 0.05, 1)
    shader.inputs['Roughness'].default_value = 0.6
    mesh.data.materials.clear()
    mesh.data.materials.append(material)

# The posed mesh's bounds, in world space.
depsgraph = bpy.context.evaluated_depsgraph_get()
posed = mesh.evaluated_get(depsgraph)
points = [posed.matrix_world @ v.co for v in posed.to_mesh().vertices]
low = Vector([min(p[i] for p in points) for i in range(3)])
high = Vector([max(p[i] for p in points) for i in range(3)])
posed.to_mesh_clear()
centre, size = (low + high) / 2, (high - low).length

bpy.ops.mesh.primitive_plane_add(size=size * 4, location=(centre.x, centre.y, low.z))
ground = bpy.context.object
floor = bpy.data.materials.new('floor')
floor.use_nodes = True
floor.node_tree.nodes['Principled BSDF'].inputs['Base Color'].default_value = (0.6, 0.6, 0.58, 1)
ground.data.materials.append(floor)

sun = bpy.data.objects.new('sun', bpy.data.lights.new('sun', 'SUN'))
sun.data.energy = 2.0
sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
scene.collection.objects.link(sun)
world = bpy.data.worlds.new('world')
world.use_nodes = True
world.node_tree.nodes['Background'].inputs['Color'].default_value = (0.92, 0.94, 0.97, 1)
world.node_tree.nodes['Background'].inputs['Strength'].default_value = 0.5
scene.world = world

camera = bpy.data.objects.new('camera', bpy.data.cameras.new('camera'))
camera.data.type = 'ORTHO'
camera.data.ortho_scale = size * 1.05
camera.data.clip_end = size * 10
direction = Vector((1.0, -1.6, 0.9)).normalized()
camera.location = centre + direction * size * 3
camera.rotation_euler = (-direction).to_track_quat('-Z', 'Y').to_euler()
scene.collection.objects.link(camera)
scene.camera = camera

scene.render.engine = 'CYCLES'
scene.cycles.device = 'CPU'
scene.cycles.samples = 16
scene.cycles.seed = 1
scene.cycles.use_denoising = False
scene.render.resolution_x, scene.render.resolution_y = 960, 640
scene.view_settings.view_transform = 'Standard'
scene.render.image_settings.file_format = 'PNG'
scene.render.image_settings.color_mode = 'RGB'
scene.render.filepath = out
bpy.ops.render.render(write_still=True)
print('PICTURE', out, len(points), 'vertices')
