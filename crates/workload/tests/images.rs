//! Images and samplers in workloads: the TOML form, what it checks, its round trip, how the
//! schedule passes them, and the check against the kernel's parameters.

use clmap_testkit::Scratch;

use clmap_workload::{
    check_kernel_params, FixedSignatures, ImageSpec, ImageType, KernelParam, LaunchArg, ParamSpace,
    StepArg, Workload, WorkloadError,
};

fn dir() -> Scratch {
    let dir = Scratch::new("image-workloads");
    dir.write("k.cl", "__kernel void k() {}\n");
    dir
}

fn load(text: &str) -> Result<Workload, WorkloadError> {
    Workload::from_toml_str(text, dir().path())
}

const FILTER: &str = r#"
source = "k.cl"
[buffers]
picture = { type = "float", len = 512, init = "random(3)", image = { type = "image2d_t", width = 8, height = 16, order = "CL_RGBA", channel_type = "CL_FLOAT" } }
grey = { type = "uchar", len = 128, output = true, image = { type = "image2d", width = 8, height = 16, order = "R", channel_type = "UNORM_INT8" } }
[[launch]]
kernel = "blur"
global = [8, 16]
args = ["picture", { name = "s", sampler = "CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR" }, "grey"]
"#;

#[test]
fn images_and_samplers_load_schedule_and_round_trip() {
    let scratch = dir();
    let w = Workload::from_toml_str(FILTER, scratch.path()).unwrap();
    let picture = w.buffer("picture").unwrap().image.unwrap();
    assert_eq!(picture.ty, ImageType::Image2d);
    assert_eq!((picture.width, picture.height, picture.depth), (8, 16, 1));
    assert_eq!(picture.byte_len(), Some(2048));
    assert_eq!(w.buffer("grey").unwrap().image.unwrap().order_name(), "CL_R");
    assert_eq!(w.launches[0].args[1], LaunchArg::Sampler { name: "s".into(), bits: 0x24 });

    let step = w.schedule().next().unwrap().unwrap();
    assert!(matches!(step.args[0], StepArg::Image { image, .. } if image == picture));
    assert_eq!(step.args[1], StepArg::Sampler { bits: 0x24 });

    let text = w.to_toml(scratch.path());
    assert!(text.contains(r#"order = "CL_RGBA""#), "{text}");
    assert!(text.contains("CLK_FILTER_LINEAR"), "{text}");
    let again = Workload::from_toml_str(&text, scratch.path()).unwrap();
    assert_eq!(again.buffers, w.buffers);
    assert_eq!(again.launches, w.launches);
}

#[test]
fn a_single_launch_takes_images_and_samplers_too() {
    let w = load(
        r#"
source = "k.cl"
kernel = "k"
global = [4]
[[arg]]
name = "img"
buffer = "int"
len = 8
image = { type = "image1d_array_t", width = 4, array_size = 2, order = "CL_R", channel_type = "CL_SIGNED_INT32" }
[[arg]]
name = "s"
sampler = 0x12
"#,
    )
    .unwrap();
    let image = w.buffer("img").unwrap().image.unwrap();
    assert_eq!(image.extent(), [4, 2, 1]);
    assert_eq!(w.launches[0].args[1], LaunchArg::Sampler { name: "s".into(), bits: 0x12 });
}

#[test]
fn bad_images_and_samplers_are_refused_with_the_reason() {
    let error = |from: &str, to: &str| {
        let text = FILTER.replace(from, to);
        assert_ne!(text, FILTER, "`{from}` is in the filter workload");
        match load(&text) {
            Ok(_) => panic!("expected an error with {to}"),
            Err(e) => e.to_string(),
        }
    };
    assert!(error("len = 512", "len = 500").contains("holds 2048 bytes, the buffer has 2000"));
    assert!(error(r#"order = "CL_RGBA""#, r#"order = "CL_RGBAZ""#).contains("not a channel order"));
    assert!(error(r#"channel_type = "CL_FLOAT""#, r#"channel_type = "CL_DOUBLE""#)
        .contains("not a channel type"));
    assert!(error(r#""image2d_t""#, r#""image4d_t""#).contains("not an image type"));
    assert!(error(
        r#""image2d_t", width = 8, height = 16"#,
        r#""image1d_t", width = 8, height = 16"#
    )
    .contains("`height` is only for 2-D and 3-D images"));
    assert!(error(
        r#""image2d_t", width = 8, height = 16"#,
        r#""image3d_t", width = 8, height = 16"#
    )
    .contains("needs `depth`"));
    assert!(error("CLK_FILTER_LINEAR", "CLK_FILTER_CUBIC").contains("not a sampler flag"));
    assert!(error("CLK_FILTER_LINEAR", "CLK_FILTER_LINEAR | CLK_FILTER_NEAREST | 0x40")
        .contains("sets bits no CLK_* sampler flag has"));
}

fn param(name: &str, type_name: &str) -> KernelParam {
    KernelParam { name: name.into(), space: ParamSpace::Private, type_name: type_name.into() }
}

#[test]
fn arguments_are_checked_against_image_and_sampler_parameters() {
    let w = load(FILTER).unwrap();
    let signature = |params: Vec<KernelParam>| FixedSignatures::one("blur", params);
    let fits = signature(vec![
        param("picture", "image2d_t"),
        param("s", "sampler_t"),
        param("grey", "image2d_t"),
    ]);
    check_kernel_params(&w, &mut fits.clone()).unwrap();

    let wrong_type = signature(vec![
        param("picture", "image3d_t"),
        param("s", "sampler_t"),
        param("grey", "image2d_t"),
    ]);
    let e = check_kernel_params(&w, &mut wrong_type.clone()).unwrap_err().to_string();
    assert!(e.contains("is an image2d_t, but the kernel expects an image3d_t"), "{e}");

    let pointer = signature(vec![
        KernelParam {
            name: "picture".into(),
            space: ParamSpace::Global,
            type_name: "float".into(),
        },
        param("s", "sampler_t"),
        param("grey", "image2d_t"),
    ]);
    let e = check_kernel_params(&w, &mut pointer.clone()).unwrap_err().to_string();
    assert!(e.contains("is an image2d_t, but the parameter is no image"), "{e}");

    let no_sampler = signature(vec![
        param("picture", "image2d_t"),
        param("s", "uint"),
        param("grey", "image2d_t"),
    ]);
    let e = check_kernel_params(&w, &mut no_sampler.clone()).unwrap_err().to_string();
    assert!(e.contains("is a sampler, but the parameter is no sampler_t"), "{e}");

    let spec = w.buffer("grey").unwrap().image.unwrap();
    assert_eq!(spec, ImageSpec { channel_order: 0x10B0, ..spec });
}
