//! The composing rules on the 2014 database: advice follows each platform's records.

use clmap_aristotle::history;
use clmap_aristotle::query::{self, Impact};
use clmap_aristotle::rules::{self, DataStructure, Rule};
use clmap_db::Database;
use std::path::Path;

fn history_db() -> Option<Database> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/aristotle-pdb-2014.csv");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} is missing", path.display());
        return None;
    };
    let mut db = Database::in_memory().expect("db");
    history::import(&mut db, &history::parse(&text).expect("parse")).expect("import");
    Some(db)
}

fn structure(map: u16, dataset: usize, local_bytes: u64) -> DataStructure {
    DataStructure::new(format!("MAP-{map}"), map, dataset, local_bytes)
}

#[test]
fn advice_on_2014_platforms_follows_their_records() {
    let Some(db) = history_db() else { return };
    let k20m = db.find_devices("k20m").expect("devices").remove(0);
    let capacity = k20m.identity.details.get("local_mem_bytes").and_then(|v| v.as_u64());
    assert_eq!(capacity, Some(48 * 1024));
    let table = query::map_table(&db, &k20m, query::DEFAULT_LOCAL_VARIANT).expect("table");
    // On the K20m at 2048: MAP-205 (mbr 3.37) and MAP-302 (1.56) gain, MAP-108 (0.91) loses.
    let s = [structure(205, 2048, 1936), structure(302, 2048, 1936), structure(108, 2048, 1936)];
    let advice = rules::compose(&table, &s, capacity, query::DEFAULT_DELTA);
    assert_eq!(advice.tuple(), "(l, l, g)");
    assert_eq!(advice.choices[2].impact, Some(Impact::Loss));
    assert!(advice.choices[0].omega > advice.choices[1].omega);
    // With room for only one tile, the larger ω (MAP-205) keeps it.
    let tight = rules::compose(&table, &s, Some(2000), query::DEFAULT_DELTA);
    assert_eq!(tight.tuple(), "(l, g, g)");
    assert_eq!(tight.choices[1].rule, Rule::NoLocalSpaceLeft);

    // On the E5-2620 the same kernel keeps MAP-205 global if the CPU loses with it.
    let snb = db.find_devices("E5-2620").expect("devices").remove(0);
    let table = query::map_table(&db, &snb, query::DEFAULT_LOCAL_VARIANT).expect("table");
    let record = table.get(205, 2048).expect("record");
    let advice = rules::compose(&table, &s[..1], None, query::DEFAULT_DELTA);
    assert_eq!(advice.choices[0].use_local, Impact::of(record.mbr, 0.05) == Impact::Gain);
}
