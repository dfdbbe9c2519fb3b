//! Image built-ins (§6.12.14): reads with and without a sampler, writes, and queries, for
//! every image type OpenCL C 1.2 defines them on. Which reads and writes an image's access
//! qualifier allows is checked after resolution (`sema::images`).

use super::{Param, Ret, Signature, Val};
use crate::ir::{Builtin, ImageKind, ImageQuery, ImageValue, Scalar, VectorSize};

/// A value of `width` components of `scalar` (1: a scalar).
fn val(scalar: Scalar, width: u32) -> Val {
    Val { scalar, size: VectorSize::from_width(width) }
}

fn texel(value: ImageValue) -> Val {
    val(value.scalar(), 4)
}

pub(super) fn signatures(name: &str) -> Vec<Signature> {
    let mut out = Vec::new();
    if let Some(value) = name.strip_prefix("read_image").and_then(ImageValue::from_suffix) {
        let builtin = Builtin::ReadImage(value);
        for kind in ImageKind::ALL {
            let width = kind.coordinate_width();
            let image = Param::Image(kind);
            // A buffer image has no sampler (it is not filtered or addressed).
            if kind != ImageKind::Image1dBuffer {
                for coordinate in [Scalar::Int, Scalar::Float] {
                    out.push(Signature::new(
                        builtin,
                        vec![image.clone(), Param::Sampler, Param::Value(val(coordinate, width))],
                        Ret::Value(texel(value)),
                    ));
                }
            }
            out.push(Signature::new(
                builtin,
                vec![image, Param::Value(val(Scalar::Int, width))],
                Ret::Value(texel(value)),
            ));
        }
        return out;
    }
    if let Some(value) = name.strip_prefix("write_image").and_then(ImageValue::from_suffix) {
        let builtin = Builtin::WriteImage(value);
        for kind in ImageKind::ALL {
            out.push(Signature::new(
                builtin,
                vec![
                    Param::Image(kind),
                    Param::Value(val(Scalar::Int, kind.coordinate_width())),
                    Param::Value(texel(value)),
                ],
                Ret::Void,
            ));
        }
        return out;
    }
    let Some(query) = ImageQuery::from_name(name) else {
        return out;
    };
    let int = Val::scalar(Scalar::Int);
    for kind in ImageKind::ALL {
        let result = match query {
            ImageQuery::Width | ImageQuery::ChannelDataType | ImageQuery::ChannelOrder => int,
            ImageQuery::Height if kind.dimensions() >= 2 => int,
            ImageQuery::Depth if kind == ImageKind::Image3d => int,
            // `int2` for 2-D images and arrays of them, `int4` for 3-D ones.
            ImageQuery::Dim if kind.dimensions() >= 2 => {
                val(Scalar::Int, if kind == ImageKind::Image3d { 4 } else { 2 })
            }
            ImageQuery::ArraySize if kind.is_array() => Val::scalar(Scalar::ULong),
            _ => continue,
        };
        out.push(Signature::new(
            Builtin::ImageQuery(query),
            vec![Param::Image(kind)],
            Ret::Value(result),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_take_a_sampler_except_on_buffer_images() {
        let reads = signatures("read_imagef");
        // Five samplable types × {int, float} coordinates, plus six sampler-less forms.
        assert_eq!(reads.len(), 5 * 2 + 6);
        assert!(!reads
            .iter()
            .any(|s| s.params.len() == 3 && s.params[0] == Param::Image(ImageKind::Image1dBuffer)));
        assert_eq!(signatures("write_imageui").len(), 6);
        assert_eq!(signatures("get_image_depth").len(), 1);
        assert_eq!(signatures("get_image_array_size").len(), 2);
        assert_eq!(signatures("get_image_dim").len(), 3);
        assert!(signatures("read_imageh").is_empty());
    }
}
