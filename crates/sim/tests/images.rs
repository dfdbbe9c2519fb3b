//! Images and samplers in the simulator: kernels run through `run_kernel` with image and
//! sampler arguments, compared with texels computed by hand from OpenCL 1.2 §8.2–8.3.

mod common;
use common::*;

use clmap_sim::memory::{decode, Target};
use clmap_sim::{
    run_kernel, AccessBatch, AccessKind, ArgValue, ImageArg, ImageDesc, ImageKind, Observer,
    ReportKind, SharedBuffer, SimError, SimOptions,
};

const CL_R: u32 = 0x10B0;
const CL_RGBA: u32 = 0x10B5;
const CL_BGRA: u32 = 0x10B6;
const CL_SIGNED_INT8: u32 = 0x10D7;
const CL_UNORM_INT8: u32 = 0x10D2;
const CL_UNSIGNED_INT16: u32 = 0x10DB;
const CL_UNSIGNED_INT32: u32 = 0x10DC;
const CL_HALF_FLOAT: u32 = 0x10DD;
const CL_FLOAT: u32 = 0x10DE;

const NORMALIZED: u32 = 1;
const ADDRESS_NONE: u32 = 0;
const CLAMP_TO_EDGE: u32 = 2;
const CLAMP: u32 = 4;
const REPEAT: u32 = 6;
const MIRRORED_REPEAT: u32 = 8;
const NEAREST: u32 = 0x10;
const LINEAR: u32 = 0x20;

fn desc(kind: ImageKind, size: [u64; 4], order: u32, ty: u32) -> ImageDesc {
    let [width, height, depth, array_size] = size;
    ImageDesc { kind, width, height, depth, array_size, channel_order: order, channel_type: ty }
}

/// An image argument over `bytes` (which must hold the whole image).
fn image(name: &str, desc: ImageDesc, bytes: &[u8]) -> (ArgValue, SharedBuffer) {
    assert_eq!(bytes.len() as u64, desc.byte_len(), "test image size");
    let storage = SharedBuffer::from_bytes(name, bytes);
    (ArgValue::Image(ImageArg { storage: storage.clone(), desc }), storage)
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn float4s(b: &SharedBuffer) -> Vec<[f32; 4]> {
    f32s(b).chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
}

#[test]
fn rgba_unorm8_copies_exactly_through_read_and_write_imagef() {
    let src = r#"
    __constant sampler_t plain = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
    __kernel void copy(__read_only image2d_t src, __write_only image2d_t dst) {
        int2 at = (int2)(get_global_id(0), get_global_id(1));
        write_imagef(dst, at, read_imagef(src, plain, at));
    }
    __kernel void copy_unsampled(read_only image2d_t src, write_only image2d_t dst) {
        int2 at = (int2)(get_global_id(0), get_global_id(1));
        write_imagef(dst, at, read_imagef(src, at));
    }"#;
    let d = desc(ImageKind::Image2d, [4, 3, 1, 1], CL_RGBA, CL_UNORM_INT8);
    let pixels: Vec<u8> = (0..48u32).map(|i| (i * 37 % 256) as u8).collect();
    for kernel in ["copy", "copy_unsampled"] {
        let (src_arg, _) = image("src", d, &pixels);
        let (dst_arg, dst) = image("dst", d, &[0; 48]);
        let run = run(src, kernel, &[4, 3], &[2, 3], &[src_arg, dst_arg]);
        assert!(run.reports.is_empty(), "{:?}", run.reports);
        assert_eq!(dst.to_bytes(), pixels, "{kernel}");
    }
}

#[test]
fn r_float_reads_fill_missing_channels_and_writes_store_red() {
    let src = r#"
    __kernel void k(read_only image2d_t src, write_only image2d_t dst, __global float4 *seen) {
        int2 at = (int2)(get_global_id(0), get_global_id(1));
        float4 v = read_imagef(src, at);
        seen[at.y * 2 + at.x] = v;
        write_imagef(dst, at, v * 2.0f + (float4)(0.0f, 100.0f, 100.0f, 100.0f));
    }"#;
    let d = desc(ImageKind::Image2d, [2, 2, 1, 1], CL_R, CL_FLOAT);
    let (src_arg, _) = image("src", d, &f32_bytes(&[1.5, -2.0, 0.25, 8.0]));
    let (dst_arg, dst) = image("dst", d, &[0; 16]);
    let seen = buf_f32("seen", &[0.0; 16]);
    run(src, "k", &[2, 2], &[2, 2], &[src_arg, dst_arg, ArgValue::Buffer(seen.clone())]);
    assert_eq!(
        float4s(&seen),
        vec![
            [1.5, 0.0, 0.0, 1.0],
            [-2.0, 0.0, 0.0, 1.0],
            [0.25, 0.0, 0.0, 1.0],
            [8.0, 0.0, 0.0, 1.0]
        ]
    );
    assert_eq!(f32s(&dst), vec![3.0, -4.0, 0.5, 16.0]);
}

#[test]
fn integer_reads_and_writes_saturate_per_channel_type() {
    let src = r#"
    __kernel void k(read_only image1d_t s8, write_only image1d_t out8,
                    read_only image1d_t u16, write_only image1d_t out16, __global int4 *seen) {
        int i = get_global_id(0);
        int4 v = read_imagei(s8, i);
        seen[i] = v;
        write_imagei(out8, i, v * 100);
        uint4 u = read_imageui(u16, i);
        seen[2 + i] = convert_int4(u);
        write_imageui(out16, i, u * 1000u);
    }"#;
    let rgba_s8 = desc(ImageKind::Image1d, [2, 1, 1, 1], CL_RGBA, CL_SIGNED_INT8);
    let (s8, _) = image("s8", rgba_s8, &[1, 0xff, 0x80, 0x7f, 0, 2, 0xfe, 3]);
    let (out8, out8_buf) = image("out8", rgba_s8, &[0; 8]);
    let r_u16 = desc(ImageKind::Image1d, [2, 1, 1, 1], CL_R, CL_UNSIGNED_INT16);
    let (u16_arg, _) = image("u16", r_u16, &[7, 0, 100, 0]);
    let (out16, out16_buf) = image("out16", r_u16, &[0; 4]);
    let seen = buf_i32("seen", &[0; 16]);
    run(src, "k", &[2], &[2], &[s8, out8, u16_arg, out16, ArgValue::Buffer(seen.clone())]);
    assert_eq!(i32s(&seen), vec![1, -1, -128, 127, 0, 2, -2, 3, 7, 0, 0, 1, 100, 0, 0, 1]);
    // 100, -100, -12800 → -128, 12700 → 127, 0, 200 → 127, -200 → -128, 300 → 127.
    assert_eq!(out8_buf.to_bytes(), vec![100, 0x9c, 0x80, 0x7f, 0, 0x7f, 0x80, 0x7f]);
    // 7000 fits a ushort, 100000 saturates to 65535.
    assert_eq!(out16_buf.to_bytes(), u32_bytes(&[7000 | (65535 << 16)]));
}

/// Reads a 4×1 `CL_R` `CL_FLOAT` image holding 1, 2, 3, 4 at `coords` with the sampler `bits`
/// passed as a kernel argument; returns the float4 of each read.
fn read_1d_row(bits: u32, coords: &[f32]) -> Vec<[f32; 4]> {
    let src = r#"
    __kernel void k(read_only image2d_t img, sampler_t s, __global const float *x, __global float4 *out) {
        int i = get_global_id(0);
        out[i] = read_imagef(img, s, (float2)(x[i], 0.5f));
    }"#;
    let d = desc(ImageKind::Image2d, [4, 1, 1, 1], CL_R, CL_FLOAT);
    let (img, _) = image("img", d, &f32_bytes(&[1.0, 2.0, 3.0, 4.0]));
    let x = buf_f32("x", coords);
    let out = buf_f32("out", &vec![0.0; coords.len() * 4]);
    let n = coords.len() as u64;
    let run = run(
        src,
        "k",
        &[n],
        &[n],
        &[img, ArgValue::Sampler(bits), ArgValue::Buffer(x), ArgValue::Buffer(out.clone())],
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    float4s(&out)
}

fn reds(texels: &[[f32; 4]]) -> Vec<f32> {
    texels.iter().map(|t| t[0]).collect()
}

#[test]
fn addressing_modes_at_the_border() {
    let edge = read_1d_row(CLAMP_TO_EDGE | NEAREST, &[-3.0, -0.5, 0.5, 3.99, 4.0, 100.0]);
    assert_eq!(reds(&edge), vec![1.0, 1.0, 1.0, 4.0, 4.0, 4.0]);

    // Outside is the border colour: CL_R has no alpha, so (0, 0, 0, 1).
    let clamp = read_1d_row(CLAMP | NEAREST, &[-0.5, 0.0, 3.5, 4.0]);
    assert_eq!(
        clamp,
        vec![
            [0.0, 0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 1.0],
            [4.0, 0.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, 1.0]
        ]
    );

    // Undefined in OpenCL; the simulator gives the border colour and goes on.
    let none = read_1d_row(ADDRESS_NONE | NEAREST, &[-1.0, 1.5, 9.0]);
    assert_eq!(reds(&none), vec![0.0, 2.0, 0.0]);

    // Normalised: 1.125 wraps to 0.125 (texel 0), -0.125 to 0.875 (texel 3), 2.375 to
    // 0.375 (texel 1).
    let repeat = read_1d_row(NORMALIZED | REPEAT | NEAREST, &[1.125, -0.125, 2.375, 0.625]);
    assert_eq!(reds(&repeat), vec![1.0, 4.0, 2.0, 3.0]);

    // Mirrored: 1.125 → 0.875 (texel 3), -0.125 → 0.125 (texel 0), 2.375 → 0.375 (texel 1),
    // 1.625 → 0.375 (texel 1).
    let mirrored =
        read_1d_row(NORMALIZED | MIRRORED_REPEAT | NEAREST, &[1.125, -0.125, 2.375, 1.625]);
    assert_eq!(reds(&mirrored), vec![4.0, 1.0, 2.0, 2.0]);

    // Linear repeat wraps the neighbour: u = 0.0625 × 4 = 0.25, i0 = floor(-0.25) = -1 → 3,
    // i1 = 0, a = 0.75: 0.25 × 4 + 0.75 × 1.
    let repeat_linear = read_1d_row(NORMALIZED | REPEAT | LINEAR, &[0.0625]);
    assert_eq!(reds(&repeat_linear), vec![0.25 * 4.0 + 0.75 * 1.0]);
}

#[test]
fn linear_filtering_on_a_2x2_image() {
    let src = r#"
    __constant sampler_t unnormalized = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
    __constant sampler_t normalized = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
    __constant sampler_t border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;
    __kernel void k(read_only image2d_t img, __global float4 *out) {
        out[0] = read_imagef(img, unnormalized, (float2)(1.0f, 1.0f));
        out[1] = read_imagef(img, unnormalized, (float2)(0.5f, 0.5f));
        out[2] = read_imagef(img, unnormalized, (float2)(1.0f, 0.75f));
        out[3] = read_imagef(img, normalized, (float2)(0.5f, 0.5f));
        out[4] = read_imagef(img, normalized, (float2)(0.0f, 0.0f));
        out[5] = read_imagef(img, border, (float2)(0.0f, 0.5f));
        out[6] = read_imagef(img, border, (float2)(2.5f, 2.5f));
    }"#;
    // Texels (x, y): (0,0) = 1, (1,0) = 2, (0,1) = 3, (1,1) = 4, in red and alpha.
    let d = desc(ImageKind::Image2d, [2, 2, 1, 1], CL_RGBA, CL_FLOAT);
    let texels = f32_bytes(&[
        1.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 2.0, 3.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 4.0,
    ]);
    let (img, _) = image("img", d, &texels);
    let out = buf_f32("out", &[0.0; 28]);
    let run = run(src, "k", &[1], &[1], &[img, ArgValue::Buffer(out.clone())]);
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    let got = float4s(&out);
    // The centre weighs the four texels equally.
    assert_eq!(got[0], [2.5, 0.0, 0.0, 2.5]);
    // A texel's centre is that texel.
    assert_eq!(got[1], [1.0, 0.0, 0.0, 1.0]);
    // a = 0.5, b = 0.25: 0.375 × 1 + 0.375 × 2 + 0.125 × 3 + 0.125 × 4 = 2.
    assert_eq!(got[2], [2.0, 0.0, 0.0, 2.0]);
    // Normalised (0.5, 0.5) is the centre of the image; (0, 0) the corner, clamped to edge.
    assert_eq!(got[3], [2.5, 0.0, 0.0, 2.5]);
    assert_eq!(got[4], [1.0, 0.0, 0.0, 1.0]);
    // Half a texel outside the left edge: half texel (0,0), half the transparent border.
    assert_eq!(got[5], [0.5, 0.0, 0.0, 0.5]);
    // Past the far corner: i0 = j0 = 2, outside; everything is the border.
    assert_eq!(got[6], [0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn normalized_nearest_coordinates_hit_texel_centres() {
    let src = r#"
    __kernel void k(read_only image2d_t img, sampler_t s, __global uint *out) {
        int x = get_global_id(0), y = get_global_id(1);
        float2 uv = ((float2)(x, y) + 0.5f) / (float2)(get_image_width(img), get_image_height(img));
        out[y * 4 + x] = read_imageui(img, s, uv).x;
    }"#;
    let d = desc(ImageKind::Image2d, [4, 2, 1, 1], CL_R, CL_UNSIGNED_INT32);
    let values: Vec<u32> = (10..18).collect();
    let (img, _) = image("img", d, &u32_bytes(&values));
    let out = SharedBuffer::from_bytes("out", &[0; 32]);
    run(
        src,
        "k",
        &[4, 2],
        &[4, 2],
        &[img, ArgValue::Sampler(NORMALIZED | CLAMP | NEAREST), ArgValue::Buffer(out.clone())],
    );
    assert_eq!(i32s(&out), values.iter().map(|&v| v as i32).collect::<Vec<_>>());
}

#[test]
fn three_dimensional_images_read_and_write_slices() {
    let src = r#"
    __kernel void k(read_only image3d_t src, write_only image3d_t dst, __global float4 *out) {
        int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
        uint4 v = read_imageui(src, (int4)(x, y, z, 0));
        write_imageui(dst, (int4)(x, y, z, 0), v + (uint4)(100u));
        if (x == 0 && y == 0 && z == 0) {
            sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
            out[0] = read_imagef(src, s, (float4)(0.5f, 0.5f, 0.5f, 0.0f));
        }
    }"#;
    let ints = desc(ImageKind::Image3d, [2, 2, 2, 1], CL_R, CL_UNSIGNED_INT32);
    let (src_arg, _) = image("src", ints, &u32_bytes(&[0, 1, 2, 3, 4, 5, 6, 7]));
    let (dst_arg, dst) = image("dst", ints, &[0; 32]);
    let out = buf_f32("out", &[0.0; 4]);
    run(src, "k", &[2, 2, 2], &[2, 2, 2], &[src_arg, dst_arg, ArgValue::Buffer(out.clone())]);
    // Texel (x, y, z) is at x + 2y + 4z.
    assert_eq!(i32s(&dst), vec![100, 101, 102, 103, 104, 105, 106, 107]);
    // read_imagef of an integer image is undefined; the simulator gives the numbers, and the
    // centre of a 2×2×2 image weighs all eight equally: (0 + … + 7) / 8.
    assert_eq!(f32s(&out), vec![3.5, 0.0, 0.0, 1.0]);
}

#[test]
fn image_arrays_address_layers() {
    let src = r#"
    __constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    __kernel void k(read_only image2d_array_t layers, write_only image1d_array_t rows, __global float *out) {
        int i = get_global_id(0);
        // The layer coordinate rounds to nearest even and clamps: 0.4 → 0, 1.5 → 2, 2.6 → 2, 9 → 2.
        float layer[4] = {0.4f, 1.5f, 2.6f, 9.0f};
        float z = layer[i];
        out[i] = read_imagef(layers, s, (float4)(1.0f, 0.0f, z, 0.0f)).x;
        out[4 + i] = read_imagef(layers, (int4)(0, 1, i, 0)).x;
        write_imagef(rows, (int2)(i % 2, i / 2), (float4)(10.0f * i));
    }"#;
    let layers = desc(ImageKind::Image2dArray, [2, 2, 1, 3], CL_R, CL_FLOAT);
    // Layer l holds 100 l + 10 y + x.
    let values: Vec<f32> = (0..3)
        .flat_map(|l| (0..2).flat_map(move |y| (0..2).map(move |x| (100 * l + 10 * y + x) as f32)))
        .collect();
    let (layers_arg, _) = image("layers", layers, &f32_bytes(&values));
    let rows = desc(ImageKind::Image1dArray, [2, 1, 1, 2], CL_R, CL_FLOAT);
    let (rows_arg, rows_buf) = image("rows", rows, &[0; 16]);
    let out = buf_f32("out", &[0.0; 8]);
    let run = run(src, "k", &[4], &[4], &[layers_arg, rows_arg, ArgValue::Buffer(out.clone())]);
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    // Reads: layers 0, 2, 2, 2 at x = 1, y = 0; then (0, 1) of layers 0, 1, 2 and a fourth
    // layer that does not exist (a sampler-less read outside: the border, red 0).
    assert_eq!(f32s(&out), vec![1.0, 201.0, 201.0, 201.0, 10.0, 110.0, 210.0, 0.0]);
    // Row arrays: layer 0 gets i = 0, 1, layer 1 gets i = 2, 3.
    assert_eq!(f32s(&rows_buf), vec![0.0, 10.0, 20.0, 30.0]);
}

#[test]
fn image_queries_return_the_descriptor() {
    let src = r#"
    __kernel void k(read_only image3d_t vol, write_only image2d_array_t arr,
                    read_only image1d_buffer_t buf, read_only image1d_array_t rows, __global int *out) {
        int4 d = get_image_dim(vol);
        out[0] = get_image_width(vol);
        out[1] = get_image_height(vol);
        out[2] = get_image_depth(vol);
        out[3] = d.x; out[4] = d.y; out[5] = d.z; out[6] = d.w;
        int2 a = get_image_dim(arr);
        out[7] = a.x; out[8] = a.y;
        out[9] = (int)get_image_array_size(arr);
        out[10] = get_image_channel_order(arr);
        out[11] = get_image_channel_data_type(arr);
        out[12] = get_image_width(buf);
        out[13] = get_image_channel_order(buf) == CLK_BGRA;
        out[14] = get_image_channel_data_type(vol) == CLK_HALF_FLOAT;
        out[15] = (int)get_image_array_size(rows);
    }"#;
    let vol = desc(ImageKind::Image3d, [3, 4, 5, 1], CL_R, CL_HALF_FLOAT);
    let (vol_arg, _) = image("vol", vol, &[0; 120]);
    let arr = desc(ImageKind::Image2dArray, [6, 2, 1, 7], CL_RGBA, CL_FLOAT);
    let (arr_arg, _) = image("arr", arr, &vec![0; 6 * 2 * 7 * 16]);
    // A buffer image may sit on a buffer larger than the image.
    let buf = desc(ImageKind::Image1dBuffer, [9, 1, 1, 1], CL_BGRA, CL_UNORM_INT8);
    let storage = SharedBuffer::from_bytes("buf", &[0; 64]);
    let buf_arg = ArgValue::Image(ImageArg { storage, desc: buf });
    let rows = desc(ImageKind::Image1dArray, [2, 1, 1, 11], CL_R, CL_FLOAT);
    let (rows_arg, _) = image("rows", rows, &[0; 88]);
    let out = buf_i32("out", &[0; 16]);
    run(
        src,
        "k",
        &[1],
        &[1],
        &[vol_arg, arr_arg, buf_arg, rows_arg, ArgValue::Buffer(out.clone())],
    );
    assert_eq!(
        i32s(&out),
        vec![3, 4, 5, 3, 4, 5, 0, 6, 2, 7, CL_RGBA as i32, CL_FLOAT as i32, 9, 1, 1, 11]
    );
}

#[test]
fn half_float_images_round_to_nearest_even_on_write() {
    let src = r#"
    __kernel void k(write_only image1d_t dst, read_only image1d_t back, __global float *out) {
        write_imagef(dst, 0, (float4)(1.0f + 1.0f / 2048.0f, 0.0f, 0.0f, 0.0f));
        write_imagef(dst, 1, (float4)(1.0f + 3.0f / 2048.0f, 0.0f, 0.0f, 0.0f));
        out[0] = read_imagef(back, 0).x;
        out[1] = read_imagef(back, 1).x;
    }"#;
    let d = desc(ImageKind::Image1d, [2, 1, 1, 1], CL_R, CL_HALF_FLOAT);
    let (dst_arg, dst) = image("dst", d, &[0; 4]);
    // 0x3c01 is 1 + 2^-10, 0xc000 is -2.
    let (back_arg, _) = image("back", d, &[0x01, 0x3c, 0x00, 0xc0]);
    let out = buf_f32("out", &[0.0; 2]);
    run(src, "k", &[1], &[1], &[dst_arg, back_arg, ArgValue::Buffer(out.clone())]);
    // Halfway between two halves the even one wins: 1.0 (0x3c00) and 1 + 2^-9 (0x3c02).
    assert_eq!(dst.to_bytes(), vec![0x00, 0x3c, 0x02, 0x3c]);
    assert_eq!(f32s(&out), vec![1.0 + 1.0 / 1024.0, -2.0]);
}

#[test]
fn writes_outside_the_image_are_reported_not_stored() {
    let src = "__kernel void k(write_only image2d_t dst) {\n    int i = get_global_id(0);\n    write_imagef(dst, (int2)(i, 1), (float4)(1.0f));\n}\n";
    let d = desc(ImageKind::Image2d, [2, 2, 1, 1], CL_R, CL_FLOAT);
    let (dst_arg, dst) = image("dst", d, &[0; 16]);
    let run = run(src, "k", &[4], &[4], &[dst_arg]);
    assert_eq!(f32s(&dst), vec![0.0, 0.0, 1.0, 1.0]);
    assert_eq!(run.reports.len(), 1, "{:?}", run.reports);
    let report = &run.reports[0];
    assert_eq!(report.kind, ReportKind::OutOfBounds);
    assert_eq!(report.occurrences, 2, "work-items 2 and 3");
    assert_eq!(report.global_id, [2, 0, 0]);
    assert_eq!(report.object.as_deref(), Some("dst"));
    // The span is the call, on the third line of the source.
    let start = report.span.start as usize;
    assert_eq!(src[..start].matches('\n').count() + 1, 3);
    assert!(src[start..].starts_with("write_imagef(dst"), "{:?}", &src[start..]);
    assert!(report.message.contains("write_imagef at [2, 1]"), "{}", report.message);
}

#[test]
fn samplers_and_images_pass_through_helper_functions() {
    let src = r#"
    const sampler_t edge = CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    float4 fetch(image1d_t img, sampler_t s, int at) { return read_imagef(img, s, at); }
    void store(write_only image1d_t img, int at, float4 v) { write_imagef(img, at, v); }
    __kernel void k(read_only image1d_t src, write_only image1d_t dst, sampler_t given) {
        int i = get_global_id(0);
        store(dst, i, fetch(src, edge, i - 1) + fetch(src, given, i + 1));
    }"#;
    let d = desc(ImageKind::Image1d, [3, 1, 1, 1], CL_R, CL_FLOAT);
    let (src_arg, _) = image("src", d, &f32_bytes(&[1.0, 2.0, 4.0]));
    let (dst_arg, dst) = image("dst", d, &[0; 12]);
    let run = run(src, "k", &[3], &[3], &[src_arg, dst_arg, ArgValue::Sampler(CLAMP | NEAREST)]);
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    // Left neighbour clamped to the edge, right neighbour bordered by 0.
    assert_eq!(f32s(&dst), vec![1.0 + 2.0, 1.0 + 4.0, 2.0 + 0.0]);
}

/// Counts loads and stores per buffer index and records their sizes.
#[derive(Default)]
struct ImageAccesses {
    loads: Vec<(usize, u32, u64)>,
    stores: Vec<(usize, u32, u64)>,
}

impl Observer for ImageAccesses {
    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        for lane in batch.mask.iter() {
            if let Target::Buffer { index, offset } = decode(batch.addresses[lane]) {
                let entry = (index, batch.size, offset);
                match batch.kind {
                    AccessKind::Load => self.loads.push(entry),
                    AccessKind::Store => self.stores.push(entry),
                    _ => {}
                }
            }
        }
    }

    fn merge(&mut self, other: Self) {
        self.loads.extend(other.loads);
        self.stores.extend(other.stores);
    }
}

#[test]
fn observers_see_texel_loads_and_stores_of_the_image_storage() {
    let src = r#"
    __constant sampler_t bilinear = CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
    __kernel void k(read_only image2d_t src, write_only image2d_t dst) {
        int2 at = (int2)(get_global_id(0), 0);
        write_imagef(dst, at, read_imagef(src, bilinear, (float2)(1.0f, 1.0f)));
    }"#;
    let d = desc(ImageKind::Image2d, [2, 2, 1, 1], CL_RGBA, CL_UNORM_INT8);
    let (src_arg, _) = image("src", d, &[0; 16]);
    let (dst_arg, _) = image("dst", d, &[0; 16]);
    let m = module(src);
    let options = SimOptions { threads: 1, ..SimOptions::default() };
    let run = run_kernel(&m, "k", &range(&[2], &[2]), &[src_arg, dst_arg], &options, &|| {
        ImageAccesses::default()
    })
    .expect("runs");
    let mut loads = run.observer.loads;
    loads.sort();
    // Two work-items each read the four texels of the 2×2 image (4 bytes each) from buffer 0.
    let expected: Vec<(usize, u32, u64)> =
        [0, 0, 4, 4, 8, 8, 12, 12].iter().map(|&o| (0, 4, o)).collect();
    assert_eq!(loads, expected);
    let mut stores = run.observer.stores;
    stores.sort();
    assert_eq!(stores, vec![(1, 4, 0), (1, 4, 4)]);
}

#[test]
fn bad_image_and_sampler_arguments_are_errors_not_panics() {
    let src = "__kernel void k(read_only image2d_t img, sampler_t s) {}";
    let m = module(src);
    let options = SimOptions { threads: 1, ..SimOptions::default() };
    let try_run = |args: &[ArgValue]| {
        run_kernel(&m, "k", &range(&[1], &[1]), args, &options, &|| clmap_sim::NoObserver)
    };
    let d2 = desc(ImageKind::Image2d, [2, 2, 1, 1], CL_R, CL_FLOAT);
    let ok_image = || image("img", d2, &[0; 16]).0;
    let sampler = ArgValue::Sampler(CLAMP | NEAREST);
    assert!(try_run(&[ok_image(), sampler.clone()]).is_ok());
    let cases = [
        (
            image("img", desc(ImageKind::Image3d, [2, 2, 1, 1], CL_R, CL_FLOAT), &[0; 16]).0,
            "image3d_t",
        ),
        (
            ArgValue::Image(ImageArg {
                storage: SharedBuffer::from_bytes("small", &[0; 15]),
                desc: d2,
            }),
            "needs 16 bytes",
        ),
        (
            ArgValue::Image(ImageArg {
                storage: SharedBuffer::from_bytes("img", &[0; 16]),
                desc: desc(ImageKind::Image2d, [2, 2, 1, 1], CL_BGRA, CL_FLOAT),
            }),
            "not a supported image format",
        ),
        (ArgValue::Bytes(vec![0; 8]), "is an image2d_t; got a value"),
    ];
    for (arg, expected) in cases {
        match try_run(&[arg, sampler.clone()]) {
            Err(SimError::BadArguments { message }) => {
                assert!(message.contains(expected), "{message} lacks {expected}")
            }
            other => panic!("expected a bad-argument error, got {other:?}"),
        }
    }
    match try_run(&[ok_image(), ArgValue::Sampler(0x30)]) {
        Err(SimError::BadArguments { message }) => assert!(message.contains("0x30")),
        other => panic!("expected a bad-argument error, got {other:?}"),
    }
}

#[test]
fn read_write_images_of_opencl_c_2_read_back_their_own_texels() {
    let src = r#"
    __kernel void k(read_write image1d_t img) {
        int i = get_global_id(0);
        write_imageui(img, i, read_imageui(img, i) * 3u);
    }"#;
    let m = match clmap_lang::frontend::compile_isolated(src, "-cl-std=CL2.0") {
        Ok(c) => c.module,
        Err(f) => panic!("{}", f.render()),
    };
    let d = desc(ImageKind::Image1d, [4, 1, 1, 1], CL_R, CL_UNSIGNED_INT32);
    let (img, storage) = image("img", d, &u32_bytes(&[1, 2, 3, 4]));
    let options = SimOptions { threads: 1, ..SimOptions::default() };
    let run = run_kernel(&m, "k", &range(&[4], &[2]), &[img], &options, &|| clmap_sim::NoObserver)
        .expect("runs");
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    assert_eq!(i32s(&storage), vec![3, 6, 9, 12]);
}

#[test]
fn the_checkers_accept_a_clean_image_kernel() {
    // Every work-item reads a neighbourhood shared with others and writes its own texel: no
    // race, nothing uninitialised, on one thread or several.
    let src = r#"
    __constant sampler_t edge = CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
    __kernel void blur(read_only image2d_t src, write_only image2d_t dst) {
        int2 at = (int2)(get_global_id(0), get_global_id(1));
        float2 centre = convert_float2(at) + 0.5f;
        float4 sum = read_imagef(src, edge, centre + (float2)(0.5f, 0.5f))
                   + read_imagef(src, edge, centre - (float2)(0.5f, 0.5f));
        write_imagef(dst, at, sum * 0.5f);
    }"#;
    let d = desc(ImageKind::Image2d, [8, 8, 1, 1], CL_RGBA, CL_UNORM_INT8);
    let pixels: Vec<u8> = (0..256u32).map(|i| (i * 11 % 256) as u8).collect();
    let mut outputs = Vec::new();
    for threads in [1, 4] {
        let (src_arg, _) = image("src", d, &pixels);
        let (dst_arg, dst) = image("dst", d, &[0; 256]);
        let options = SimOptions {
            threads,
            check_races: true,
            check_uninitialised: true,
            ..SimOptions::default()
        };
        let run = run_with(src, "blur", &[8, 8], &[4, 4], &[src_arg, dst_arg], &options);
        assert!(run.reports.is_empty(), "{:?}", run.reports);
        outputs.push(dst.to_bytes());
    }
    assert_eq!(outputs[0], outputs[1], "the same texels on 1 and 4 threads");
    assert_ne!(outputs[0], vec![0; 256]);
}

#[test]
fn nearest_reads_return_the_texel_itself() {
    // The sign of zero and an infinity survive a sampled nearest read (no weighted sum).
    let src = r#"
    __constant sampler_t s = CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    __kernel void k(read_only image1d_t img, __global float *out) {
        int i = get_global_id(0);
        out[i] = read_imagef(img, s, (float)i + 0.5f).x;
    }"#;
    let d = desc(ImageKind::Image1d, [2, 1, 1, 1], CL_R, CL_FLOAT);
    let (img, _) = image("img", d, &f32_bytes(&[-0.0, f32::INFINITY]));
    let out = buf_f32("out", &[1.0; 2]);
    run(src, "k", &[2], &[2], &[img, ArgValue::Buffer(out.clone())]);
    let bits: Vec<u32> = f32s(&out).iter().map(|f| f.to_bits()).collect();
    assert_eq!(bits, [(-0.0f32).to_bits(), f32::INFINITY.to_bits()]);
}

/// Work-items writing one pixel: the same value is a same-value race (a flag every work-item
/// sets, as filters do), different values a data race, as for stores through a pointer.
#[test]
fn image_writes_of_one_value_to_one_pixel_are_same_value_races() {
    let src = r#"
    __kernel void flag(__write_only image2d_t img, int differ) {
        uint v = differ ? (uint)get_global_id(0) : 1u;
        write_imageui(img, (int2)(0, 0), (uint4)(v));
    }"#;
    for (differ, kind) in [(0i32, ReportKind::SameValueRace), (1, ReportKind::DataRace)] {
        let (img, _) =
            image("img", desc(ImageKind::Image2d, [2, 2, 1, 1], CL_R, CL_UNSIGNED_INT32), &[0; 16]);
        let args = [img, ArgValue::Bytes(differ.to_le_bytes().to_vec())];
        let options = SimOptions { check_races: true, ..SimOptions::default() };
        let run = run_with(src, "flag", &[8], &[4], &args, &options);
        assert!(!run.reports.is_empty(), "differ = {differ}: no race found");
        assert!(
            run.reports.iter().all(|r| r.kind == kind),
            "differ = {differ}: {:#?}",
            run.reports
        );
    }
}

/// A colour with components nothing wrote, written to an image, is a store of an undefined
/// value, as through a pointer; a read of that texel afterwards is undefined too.
#[test]
fn writing_an_undefined_colour_to_an_image_is_reported() {
    let src = r#"
    __kernel void paint(__write_only image2d_t img, int partial) {
        int i = get_global_id(0);
        float4 colour;
        colour.x = 1.0f;
        if (!partial) colour.yzw = (float3)(0.5f);
        write_imagef(img, (int2)(i, 0), colour);
    }"#;
    for (partial, expected) in [(0i32, 0usize), (1, 1)] {
        let (img, _) =
            image("img", desc(ImageKind::Image2d, [4, 1, 1, 1], CL_RGBA, CL_FLOAT), &[0; 64]);
        let args = [img, ArgValue::Bytes(partial.to_le_bytes().to_vec())];
        let options = SimOptions { check_uninitialised: true, ..SimOptions::default() };
        let run = run_with(src, "paint", &[4], &[4], &args, &options);
        let undefined: Vec<_> =
            run.reports.iter().filter(|r| r.kind == ReportKind::UninitialisedRead).collect();
        assert_eq!(undefined.len(), expected, "partial = {partial}: {:#?}", run.reports);
        if expected > 0 {
            assert!(
                undefined[0].message.contains("store of an undefined value"),
                "{:#?}",
                undefined
            );
        }
    }
}
