// N-body step as in nbody_local.cl, followed by a per-work-group reduction of
// the kinetic energy that reuses the position tile as its scratch array.
// Pattern: a local buffer that is not a pure software cache: after the
// GL -> LS -> LL staging, computed values are stored into the same tile and
// read back by other work-items. Grover must refuse to remove this tile
// (seed 000, section IV-D limitations: local memory as temporary storage).
// Group energies go to energy[get_group_id(0)].

#define SOFTENING_SQUARED 0.01f

__kernel void nbody_tile_reuse(__global float4 *new_pos,
                               __global float4 *new_vel,
                               __global const float4 *old_pos,
                               __global const float4 *old_vel,
                               __global float *energy,
                               const float dt,
                               const uint num_bodies,
                               __local float4 *tile)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint tile_size = get_local_size(0);

    const float4 me = old_pos[gid];
    float3 acc = (float3)(0.0f);

    for (uint start = 0; start < num_bodies; start += tile_size) {
        tile[lid] = old_pos[start + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < tile_size; j++) {
            const float4 other = tile[j];
            const float3 r = other.xyz - me.xyz;
            const float inv_dist = rsqrt(dot(r, r) + SOFTENING_SQUARED);
            acc += r * (other.w * inv_dist * inv_dist * inv_dist);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    float4 vel = old_vel[gid];
    vel.xyz += acc * dt;
    float4 pos = me;
    pos.xyz += vel.xyz * dt;
    new_pos[gid] = pos;
    new_vel[gid] = vel;

    // Reuse the tile: each work-item stores its kinetic energy in .x and the
    // group sums them with a tree reduction (tile_size is a power of two).
    tile[lid] = (float4)(0.5f * me.w * dot(vel.xyz, vel.xyz), 0.0f, 0.0f, 0.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = tile_size / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            tile[lid].x += tile[lid + stride].x;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        energy[get_group_id(0)] = tile[0].x;
}
