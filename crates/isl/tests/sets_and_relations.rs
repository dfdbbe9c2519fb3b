//! The binding against isl itself: known answers of set and relation algebra, the failures
//! users meet (syntax, mismatched spaces, unbounded counts) as errors, and ownership that
//! survives copying and dropping in any order.

use clmap_isl::{Context, IslError};

#[test]
fn the_tile_of_a_producer_is_the_consumer_tile_pulled_back_through_both_relations() {
    // Seed 002's example: g reads A[id-1], A[id], A[id+1]; f writes A[id]. The tile of f
    // needed for a tile of g is the tile widened by the halo of one on each side.
    let ctx = Context::new();
    let consume_g = ctx.map("{ [id0] -> [a] : id0 - 1 <= a <= id0 + 1 }").unwrap();
    let produce_f = ctx.map("{ [id0] -> [a] : a = id0 }").unwrap();
    let tile_g = ctx.set("[start0, len0] -> { [id0] : start0 <= id0 < start0 + len0 }").unwrap();

    let data = tile_g.apply(&consume_g).unwrap();
    let tile_f = data.apply(&produce_f.reverse().unwrap()).unwrap();

    // The slide's formula assumes a tile of at least one element: an empty tile of g needs
    // nothing from f, and isl says so with `len0 > 0`.
    let expected = ctx
        .set("[start0, len0] -> { [id0] : start0 - 1 <= id0 < start0 + len0 + 1 }")
        .unwrap()
        .intersect_params(&ctx.set("[start0, len0] -> { : len0 > 0 }").unwrap())
        .unwrap();
    assert!(tile_f.is_equal(&expected).unwrap(), "got {tile_f}");
    assert_eq!(tile_f.param_names().unwrap(), ["start0", "len0"]);
}

#[test]
fn fixing_parameters_gives_countable_tiles_with_their_bounds() {
    let ctx = Context::new();
    let tile =
        ctx.set("[start0, len0] -> { [id0] : start0 - 1 <= id0 < start0 + len0 + 1 }").unwrap();
    let fixed = tile.fix_param("start0", 32).unwrap().fix_param("len0", 16).unwrap();
    // The parameters stay in the space, fixed; projecting them away is not needed to count.
    assert_eq!(fixed.count().unwrap(), 18);
    assert_eq!(fixed.dim_range(0).unwrap(), (31, 48));

    let square = ctx.set("{ [i, j] : 0 <= i < 4 and 0 <= j < 3 }").unwrap();
    assert_eq!(square.dims().unwrap(), 2);
    assert_eq!(square.count().unwrap(), 12);
    assert_eq!(square.dim_range(1).unwrap(), (0, 2));
    assert!(matches!(square.dim_range(2), Err(IslError::NoSuchDimension { index: 2, .. })));
}

#[test]
fn redundant_points_are_the_difference_of_tiles() {
    // Two neighbouring tiles of 8 with a halo of 1 overlap in 2 points per boundary.
    let ctx = Context::new();
    let left = ctx.set("{ [i] : -1 <= i < 9 }").unwrap();
    let right = ctx.set("{ [i] : 7 <= i < 17 }").unwrap();
    let overlap = left.intersect(&right).unwrap();
    assert_eq!(overlap.count().unwrap(), 2);
    assert_eq!(left.union(&right).unwrap().count().unwrap(), 18);
    assert_eq!(left.subtract(&right).unwrap().count().unwrap(), 8);
    assert!(overlap.is_subset(&left).unwrap());
    assert!(!left.is_subset(&overlap).unwrap());
}

#[test]
fn relations_compose_reverse_and_restrict() {
    let ctx = Context::new();
    let shift = ctx.map("{ [i] -> [i + 1] }").unwrap();
    let twice = shift.apply_range(&shift).unwrap();
    assert!(twice.is_equal(&ctx.map("{ [i] -> [i + 2] }").unwrap()).unwrap());
    assert!(twice.is_single_valued().unwrap());
    assert_eq!(twice.arity().unwrap(), (1, 1));

    let stencil = ctx.map("{ [i] -> [j] : i - 1 <= j <= i + 1 }").unwrap();
    assert!(!stencil.is_single_valued().unwrap());
    let inside = ctx.set("{ [i] : 0 <= i < 10 }").unwrap();
    let bounded = stencil.intersect_domain(&inside).unwrap().intersect_range(&inside).unwrap();
    assert_eq!(bounded.range().unwrap().count().unwrap(), 10);
    assert_eq!(bounded.domain().unwrap().count().unwrap(), 10);
    assert!(bounded.reverse().unwrap().reverse().unwrap().is_equal(&bounded).unwrap());
    let none = bounded.intersect_domain(&ctx.set("{ [i] : i > 100 }").unwrap()).unwrap();
    assert!(none.is_empty().unwrap());

    let n = ctx.map("[n] -> { [i] -> [i] : 0 <= i < n }").unwrap();
    let fixed = n.fix_param("n", 5).unwrap();
    assert_eq!(fixed.domain().unwrap().count().unwrap(), 5);
    let limited = n.intersect_params(&ctx.set("[n] -> { : n = 3 }").unwrap()).unwrap();
    assert_eq!(limited.range().unwrap().count().unwrap(), 3);
}

#[test]
fn printed_sets_parse_back_to_the_same_set() {
    let ctx = Context::new();
    for text in [
        "[n] -> { [i, j] : 0 <= i < n and i <= j < n }",
        "{ [i] : i mod 4 = 1 and 0 <= i < 100 }",
        "{ [i] : i < 0 or i > 10 }",
    ] {
        let set = ctx.set(text).unwrap();
        let again = ctx.set(&set.to_string()).unwrap();
        assert!(set.is_equal(&again).unwrap(), "{text} printed as {set}");
        assert_eq!(set, set.coalesce().unwrap());
    }
    let map = ctx.map("[n] -> { [i] -> [j] : j = 2i and 0 <= i < n }").unwrap();
    assert_eq!(ctx.map(&map.to_string()).unwrap(), map);
}

#[test]
fn failures_are_errors_with_isl_messages() {
    let ctx = Context::new();
    match ctx.set("{ [i] : 0 <= i < }") {
        Err(IslError::Failed { operation, message }) => {
            assert_eq!(operation, "parse a set");
            assert!(!message.is_empty());
        }
        other => panic!("expected a parse failure, got {other:?}"),
    }
    // The context is usable after a failure.
    assert_eq!(ctx.set("{ [i] : 0 <= i < 3 }").unwrap().count().unwrap(), 3);

    // Spaces of different dimension cannot be intersected.
    let one = ctx.set("{ [i] : 0 <= i < 3 }").unwrap();
    let two = ctx.set("{ [i, j] : 0 <= i, j < 3 }").unwrap();
    assert!(matches!(one.intersect(&two), Err(IslError::Failed { .. })));
    assert_ne!(one, two);

    let unbounded = ctx.set("{ [i] : i >= 0 }").unwrap();
    assert!(!unbounded.is_bounded().unwrap());
    let count = unbounded.count();
    assert!(matches!(count, Err(IslError::NotFinite { .. })), "{count:?}");
    assert!(matches!(unbounded.dim_range(0), Err(IslError::NotFinite { .. })));

    let symbolic = ctx.set("[n] -> { [i] : 0 <= i < n }").unwrap();
    let count = symbolic.count();
    assert!(
        matches!(&count, Err(IslError::Symbolic { params, .. }) if params == "n"),
        "a parametric set has no single count: {count:?}"
    );
    assert_eq!(symbolic.fix_param("n", 7).unwrap().count().unwrap(), 7);
    assert!(matches!(one.fix_param("n", 1), Err(IslError::NoSuchParameter { .. })));
    assert!(matches!(ctx.set("{ [i] }\0"), Err(IslError::InteriorNul)));
}

#[test]
fn objects_of_different_contexts_are_refused() {
    let a = Context::new();
    let b = Context::new();
    let x = a.set("{ [i] : 0 <= i < 3 }").unwrap();
    let y = b.set("{ [i] : 0 <= i < 3 }").unwrap();
    assert!(matches!(x.union(&y), Err(IslError::ForeignContext { .. })));
    assert!(matches!(
        x.apply(&b.map("{ [i] -> [i] }").unwrap()),
        Err(IslError::ForeignContext { .. })
    ));
}

#[test]
fn objects_outlive_their_context_handle_and_copies_are_independent() {
    let set = {
        let ctx = Context::new();
        ctx.set("{ [i] : 0 <= i < 5 }").unwrap()
    };
    let copies: Vec<_> = (0..100).map(|_| set.clone()).collect();
    drop(set);
    let grown = copies[3].union(&copies[7].context().set("{ [i] : 5 <= i < 8 }").unwrap()).unwrap();
    assert_eq!(grown.count().unwrap(), 8);
    assert!(copies.iter().all(|c| c.count().unwrap() == 5));
}

/// A tile's reach from its origin is the set of differences of the origin → point relation;
/// clamped indices (`max`, `min`) are exact in isl's notation.
#[test]
fn deltas_measure_reach_and_clamps_are_exact() {
    let ctx = Context::new();
    let tile =
        ctx.map("{ [t] -> [p] : exists k : t = 8k and 0 <= t < 64 and t <= p < t + 8 }").unwrap();
    let reads = ctx.map("{ [p] -> [q] : q = max(p - 1, 0) or q = min(p + 1, 63) }").unwrap();
    let reach = tile.apply_range(&reads).unwrap().deltas().unwrap();
    assert_eq!(reach.dim_range(0).unwrap(), (-1, 8));
}

#[test]
fn simple_hull_is_one_piece_containing_every_piece() {
    let ctx = Context::new();
    // A 5-point stencil's reads: five pieces, hulled into one box around the point.
    let reads = ctx
        .map("[n] -> { [p] -> [q] : 0 < p < n and (q = p - 1 or q = p or q = p + 1 or q = p - 4 or q = p + 4) }")
        .unwrap();
    let hull = reads.simple_hull().unwrap();
    let expected = ctx.map("[n] -> { [p] -> [q] : 0 < p < n and p - 4 <= q <= p + 4 }").unwrap();
    assert!(hull.is_equal(&expected).unwrap(), "{hull}");
    assert!(reads.union(&hull).unwrap().is_equal(&hull).unwrap(), "the hull contains the relation");
}
