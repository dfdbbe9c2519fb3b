//! The 2014 database imported as history reproduces the paper's Table 5.

use clmap_aristotle::history;
use clmap_aristotle::query::{self, DistributionRow};
use clmap_db::Database;
use std::path::Path;

const CSV: &str = "../../../shared/data/aristotle-pdb-2014.csv";

#[test]
fn table_5_of_the_paper_from_the_2014_database() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CSV);
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} is missing", path.display());
        return;
    };
    let records = history::parse(&text).expect("the 2014 file parses");
    assert_eq!(records.len(), 1386);
    let mut db = Database::in_memory().expect("db");
    let first = history::import(&mut db, &records).expect("import");
    assert_eq!(first.platforms.len(), 7);
    assert_eq!(first.inserted, 1386);
    assert_eq!(history::import(&mut db, &records).expect("again").inserted, 0);

    let k20m = db.find_devices("k20m").expect("devices");
    assert_eq!(k20m.len(), 1);
    let table = query::map_table(&db, &k20m[0], query::DEFAULT_LOCAL_VARIANT).expect("table");
    assert_eq!(table.records.len(), 33 * 6);
    let rows = table.distribution(query::DEFAULT_DELTA);
    // Table 5, K20m column: 128 → 20 gain, 0 loss, 13 similar; 256 → 26, 4, 3.
    let row = |n: usize| -> DistributionRow {
        *rows.iter().find(|r| r.dataset == n).expect("dataset present")
    };
    assert_eq!((row(128).gain, row(128).loss, row(128).similar), (20, 0, 13));
    assert_eq!((row(256).gain, row(256).loss, row(256).similar), (26, 4, 3));

    // C1060 at 128: 27 gain (81 %), 1 loss, 5 similar.
    let c1060 = db.find_devices("c1060").expect("devices");
    let table = query::map_table(&db, &c1060[0], query::DEFAULT_LOCAL_VARIANT).expect("table");
    let rows = table.distribution(query::DEFAULT_DELTA);
    let r128 = rows.iter().find(|r| r.dataset == 128).expect("128");
    assert_eq!((r128.gain, r128.loss, r128.similar), (27, 1, 5));
    assert_eq!(r128.percent(r128.gain), 81);
}
