// All-pairs n-body step: every body accumulates the gravitational pull of all
// others, then velocity and position are integrated with a leapfrog step.
// Pattern: NVIDIA SDK oclNbody (seed 000, NVD-NBody): bodies are visited in
// tiles of get_local_size(0); each tile is staged in local memory by the
// work-group (one float4 per work-item) and read by every work-item, so all
// work-items read the same local element at the same time (broadcast).
// Positions are float4 (xyz, w = mass).

#define SOFTENING_SQUARED 0.01f

static float3 pull_of(float4 me, float4 other, float3 acc)
{
    const float3 r = other.xyz - me.xyz;
    const float dist_sq = dot(r, r) + SOFTENING_SQUARED;
    const float inv_dist = rsqrt(dist_sq);
    const float inv_dist_cube = inv_dist * inv_dist * inv_dist;
    return acc + r * (other.w * inv_dist_cube);
}

__kernel void nbody_local(__global float4 *new_pos,
                          __global float4 *new_vel,
                          __global const float4 *old_pos,
                          __global const float4 *old_vel,
                          const float dt,
                          const float damping,
                          const uint num_bodies,
                          __local float4 *tile)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint tile_size = get_local_size(0);

    const float4 me = old_pos[gid];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);

    for (uint start = 0; start < num_bodies; start += tile_size) {
        tile[lid] = old_pos[start + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < tile_size; j++)
            acc = pull_of(me, tile[j], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    float4 vel = old_vel[gid];
    vel.xyz += acc * dt;
    vel.xyz *= damping;
    float4 pos = me;
    pos.xyz += vel.xyz * dt;

    new_pos[gid] = pos;
    new_vel[gid] = vel;
}
