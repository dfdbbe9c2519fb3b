//! Images and samplers through the front end: what is accepted and how it lands in the IR,
//! what is refused and where the error points, and the printed text read back.

use clmap_lang::frontend::{compile_isolated, Compiled};
use clmap_lang::ir::{
    AccessQualifier, Builtin, ConstValue, Expression, ImageKind, ImageValue, Literal, Scalar,
    TypeInner,
};
use clmap_lang::print;

fn compile(src: &str) -> Compiled {
    match compile_isolated(src, "") {
        Ok(c) => c,
        Err(f) => panic!("does not compile:\n{}", f.render()),
    }
}

/// The rendered diagnostics of a source that must be refused.
fn refused(src: &str, options: &str) -> String {
    match compile_isolated(src, options) {
        Ok(_) => panic!("compiles, but should not:\n{src}"),
        Err(f) => f.render(),
    }
}

/// Asserts that the first error is `message` at `line:column`.
fn assert_error_at(rendered: &str, line: u32, column: u32, message: &str) {
    let first = rendered.lines().next().unwrap_or_default();
    let expected = format!("input.cl:{line}:{column}: error: {message}");
    assert!(first.starts_with(&expected), "expected `{expected}`, got:\n{rendered}");
}

#[test]
fn image_parameters_keep_their_access_and_default_to_read_only() {
    let c = compile(
        "__kernel void k(image2d_t a, __write_only image3d_t b, read_only image1d_buffer_t c,
                         sampler_t s, __global int *p) {}",
    );
    let k = &c.module.functions[c.module.kernel_by_name("k").unwrap()];
    let access: Vec<_> = k.params.iter().map(|p| p.access).collect();
    assert_eq!(
        access,
        [
            Some(AccessQualifier::ReadOnly),
            Some(AccessQualifier::WriteOnly),
            Some(AccessQualifier::ReadOnly),
            None,
            None
        ]
    );
    assert_eq!(c.module.types[k.params[1].ty], TypeInner::Image(ImageKind::Image3d));
    assert_eq!(c.module.types[k.params[3].ty], TypeInner::Sampler);
}

#[test]
fn samplers_from_flags_hold_their_bits() {
    let c = compile(
        "__constant sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;
         __kernel void k(read_only image2d_t i, __global float4 *out) {
             out[0] = read_imagef(i, CLK_ADDRESS_NONE | CLK_FILTER_NEAREST, (int2)(0, 0));
         }",
    );
    let global = c.module.global_variables.iter().next().map(|(_, g)| g).unwrap();
    assert_eq!(global.init, Some(ConstValue::Literal(Literal::int(Scalar::UInt, 0x20 | 8 | 1))));
    // A flag value passed where a sampler is expected becomes a sampler.
    let k = &c.module.functions[c.module.kernel_by_name("k").unwrap()];
    let read = k
        .expressions
        .iter()
        .find_map(|(_, e)| match e {
            Expression::Builtin { function: Builtin::ReadImage(ImageValue::Float), args } => {
                Some(args.clone())
            }
            _ => None,
        })
        .expect("a read");
    assert_eq!(c.module.types[k.type_of(read[1])], TypeInner::Sampler);
    assert!(print::print_module(&c.module)
        .contains("read_imagef(i, CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST, (int2)(0, 0))"));
}

#[test]
fn arithmetic_on_an_image_is_refused_at_the_operator() {
    let src =
        "__kernel void k(read_only image2d_t img, __global int *out) {\n    out[0] = img + 1;\n}\n";
    assert_error_at(
        &refused(src, ""),
        2,
        14,
        "invalid operands to binary expression ('image2d_t' and 'int')",
    );
}

#[test]
fn writing_a_read_only_image_points_at_the_image() {
    let src = "__kernel void k(image2d_t img) {\n    write_imagef(img, (int2)(0, 0), (float4)(1.0f));\n}\n";
    let rendered = refused(src, "");
    assert_error_at(&rendered, 2, 18, "'write_imagef' cannot write the read_only image 'img'");
    assert!(rendered.contains("help: declare the parameter __write_only"), "{rendered}");
}

#[test]
fn reading_a_write_only_image_is_refused() {
    let src = "__kernel void k(write_only image2d_t img, __global uint4 *out) {\n    out[0] = read_imageui(img, (int2)(0, 0));\n}\n";
    assert_error_at(
        &refused(src, ""),
        2,
        27,
        "'read_imageui' cannot read the write_only image 'img'",
    );
}

#[test]
fn images_are_only_parameters() {
    let pointer = "__kernel void k(read_only image2d_t img) {\n    image2d_t *p = 0;\n}\n";
    assert_error_at(
        &refused(pointer, ""),
        2,
        15,
        "pointer to type 'image2d_t' is invalid in OpenCL",
    );
    let local = "__kernel void k(read_only image2d_t img) {\n    image2d_t copy = img;\n}\n";
    assert_error_at(
        &refused(local, ""),
        2,
        15,
        "type 'image2d_t' can only be used as a function parameter in OpenCL",
    );
    let returned = "image2d_t pass(image2d_t img) { return img; }\n";
    assert_error_at(&refused(returned, ""), 1, 11, "function cannot return 'image2d_t'");
    let address = "__kernel void k(read_only image2d_t img) {\n    (void)&img;\n}\n";
    assert_error_at(
        &refused(address, ""),
        2,
        11,
        "cannot take the address of an object of type 'image2d_t'",
    );
    let access = "__kernel void k(read_only int n) {}\n";
    assert_error_at(
        &refused(access, ""),
        1,
        17,
        "access qualifier 'read_only' can only be used for image types, not 'int'",
    );
}

#[test]
fn samplers_cannot_be_modified_or_made_at_run_time() {
    let assigned = "__kernel void k(sampler_t s, sampler_t t) {\n    s = t;\n}\n";
    assert_error_at(
        &refused(assigned, ""),
        2,
        5,
        "an object of type 'sampler_t' cannot be modified",
    );
    let varying = "__kernel void k(int n) {\n    sampler_t s = n;\n}\n";
    assert_error_at(
        &refused(varying, ""),
        2,
        19,
        "a sampler must be initialized with a constant, not a value of type 'int'",
    );
    let invalid = "__constant sampler_t s = CLK_FILTER_NEAREST | CLK_FILTER_LINEAR;\n";
    assert_error_at(
        &refused(invalid, ""),
        1,
        26,
        "0x30 is not a sampler: it sets bits no combination of CLK_* sampler flags sets",
    );
}

#[test]
fn overloads_follow_the_image_type() {
    // A 3-D image takes four coordinates; a buffer image has no sampler.
    let wrong_width = "__kernel void k(read_only image3d_t img, sampler_t s, __global float4 *out) {\n    out[0] = read_imagef(img, s, (int2)(0, 0));\n}\n";
    assert_error_at(
        &refused(wrong_width, ""),
        2,
        14,
        "no matching overload for read_imagef(image3d_t, sampler_t, int2)",
    );
    let sampled_buffer = "__kernel void k(read_only image1d_buffer_t img, sampler_t s, __global float4 *out) {\n    out[0] = read_imagef(img, s, 0);\n}\n";
    assert!(refused(sampled_buffer, "").contains("no matching overload for read_imagef"));
    let no_depth = "__kernel void k(read_only image2d_t img, __global int *out) {\n    out[0] = get_image_depth(img);\n}\n";
    assert!(refused(no_depth, "").contains("no matching overload for get_image_depth(image2d_t)"));
}

#[test]
fn read_write_images_need_opencl_c_2() {
    let src = "__kernel void k(read_write image2d_t img) {\n    write_imagef(img, (int2)(0, 0), read_imagef(img, (int2)(1, 1)));\n}\n";
    assert_error_at(
        &refused(src, ""),
        1,
        17,
        "access qualifier 'read_write' can not be used for images prior to OpenCL C 2.0",
    );
    let c = compile_isolated(src, "-cl-std=CL2.0").unwrap_or_else(|f| panic!("{}", f.render()));
    let k = &c.module.functions[c.module.kernel_by_name("k").unwrap()];
    assert_eq!(k.params[0].access, Some(AccessQualifier::ReadWrite));
    assert!(print::print_module(&c.module).contains("__read_write image2d_t img"));
    // A sampled read still needs a read_only image.
    let sampled = "__kernel void k(read_write image2d_t img, sampler_t s, __global float4 *out) {\n    out[0] = read_imagef(img, s, (int2)(0, 0));\n}\n";
    assert_error_at(
        &refused(sampled, "-cl-std=CL2.0"),
        2,
        26,
        "'read_imagef' with a sampler needs a read_only image; 'img' is read_write",
    );
}

#[test]
fn printed_image_kernels_compile_again_and_with_clang() {
    let src = "
        const sampler_t edge = CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
        float4 blur(image2d_t img, float2 at) {
            const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
            return (read_imagef(img, edge, at) + read_imagef(img, s, at)) * 0.5f;
        }
        __kernel void k(image2d_t in, write_only image2d_t out, image2d_array_t layers) {
            int2 at = (int2)(get_global_id(0), get_global_id(1));
            int2 size = get_image_dim(in);
            float4 v = blur(in, convert_float2(at) + 0.5f);
            v.w = (float)get_image_array_size(layers) + (float)size.x;
            write_imagef(out, at, v);
        }";
    let first = print::print_module(&compile(src).module);
    let second = print::print_module(&compile(&first).module);
    assert_eq!(first, second, "printing is a fixpoint");
    clmap_testkit::assert_compiles_with_clang(&first);
}
