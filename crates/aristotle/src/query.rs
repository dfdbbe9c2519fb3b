//! The performance-database record of seed 001 (§6.4.1): per (device, MAP, dataset) the
//! bandwidth without local memory (b), with local memory (B) and their ratio mbr = B / b; and
//! the gain/loss/similar distribution of Table 5.

use crate::store;
use clmap_db::{Database, DbError};
use serde::Serialize;
use std::collections::BTreeMap;

/// The threshold of Table 5: |mbr − 1| ≤ δ is "similar".
pub const DEFAULT_DELTA: f64 = 0.05;

/// The variant whose bandwidth counts as B unless the user picks another: the max-approach
/// allocation, the one the paper's database holds.
pub const DEFAULT_LOCAL_VARIANT: &str = "max";

/// The variant `clmap advise WORKLOAD` takes B from unless told otherwise: the `nolocal`
/// microbenchmark with its input staged by clmap's stager (`clmap local`), the rewrite `clmap
/// tune` builds and times, so the rules judge the tile a user would get. The generator's
/// `max` tile (core and halo passes, a barrier per chunk for Row and Column MAPs) is another
/// code and often another verdict.
pub const STAGED_VARIANT: &str = "stage";

/// The variant whose bandwidth is b.
pub const NO_LOCAL_VARIANT: &str = "nolocal";

/// One database record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapRecord {
    /// MAP number.
    pub map: u16,
    /// Dataset side.
    pub dataset: usize,
    /// Bandwidth without local memory: mean and standard deviation (GB/s).
    pub b_mean: f64,
    pub b_std: f64,
    /// Bandwidth with local memory: mean and standard deviation (GB/s).
    #[serde(rename = "B_mean")]
    pub big_b_mean: f64,
    #[serde(rename = "B_std")]
    pub big_b_std: f64,
    /// B_mean / b_mean.
    pub mbr: f64,
    /// The work-group `[x, y]` both were timed with; none for the 2014 history, which did not
    /// keep it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_group: Option<[usize; 2]>,
    /// Samples behind b and B (none for the 2014 history, which kept only means).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<[usize; 2]>,
}

#[cfg(test)]
impl MapRecord {
    /// A record of ratio `mbr` (b = 1, B = mbr, no spread, no work-group), for tests of what
    /// is decided from ratios alone.
    pub(crate) fn with_ratio(map: u16, dataset: usize, mbr: f64) -> MapRecord {
        MapRecord {
            map,
            dataset,
            b_mean: 1.0,
            b_std: 0.0,
            big_b_mean: mbr,
            big_b_std: 0.0,
            mbr,
            work_group: None,
            samples: None,
        }
    }
}

/// Whether local memory pays off for a record, at threshold δ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// mbr > 1 + δ.
    Gain,
    /// mbr < 1 − δ.
    Loss,
    /// Within δ of 1.
    Similar,
}

impl Impact {
    /// Classifies a ratio. A non-finite ratio (b of 0) is "similar": there is no evidence
    /// either way.
    pub fn of(mbr: f64, delta: f64) -> Impact {
        if !mbr.is_finite() {
            Impact::Similar
        } else if mbr > 1.0 + delta {
            Impact::Gain
        } else if mbr < 1.0 - delta {
            Impact::Loss
        } else {
            Impact::Similar
        }
    }
}

/// The records of one device, ordered by (MAP, dataset).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapTable {
    /// Device label.
    pub device: String,
    /// Which variant B is.
    pub local_variant: String,
    /// The records.
    pub records: Vec<MapRecord>,
}

impl MapTable {
    /// The record of (MAP, dataset), if measured (the first work-group's when several were).
    pub fn get(&self, map: u16, dataset: usize) -> Option<&MapRecord> {
        self.records.iter().find(|r| r.map == map && r.dataset == dataset)
    }

    /// The record of (MAP, dataset) timed with `work_group`, else one without a work-group
    /// (the 2014 history's).
    pub fn get_on(&self, map: u16, dataset: usize, work_group: [usize; 2]) -> Option<&MapRecord> {
        let on = |r: &&MapRecord| r.map == map && r.dataset == dataset;
        let records = || self.records.iter().filter(on);
        records()
            .find(|r| r.work_group == Some(work_group))
            .or_else(|| records().find(|r| r.work_group.is_none()))
    }

    /// Datasets present, ascending.
    pub fn datasets(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = self.records.iter().map(|r| r.dataset).collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// MAPs present, ascending.
    pub fn maps(&self) -> Vec<u16> {
        let mut maps: Vec<u16> = self.records.iter().map(|r| r.map).collect();
        maps.sort_unstable();
        maps.dedup();
        maps
    }

    /// Table 5 for this device: per dataset, how many MAPs gain, lose or stay similar.
    pub fn distribution(&self, delta: f64) -> Vec<DistributionRow> {
        let mut by_size: BTreeMap<usize, DistributionRow> = BTreeMap::new();
        for r in &self.records {
            let row = by_size.entry(r.dataset).or_insert(DistributionRow {
                dataset: r.dataset,
                gain: 0,
                loss: 0,
                similar: 0,
            });
            match Impact::of(r.mbr, delta) {
                Impact::Gain => row.gain += 1,
                Impact::Loss => row.loss += 1,
                Impact::Similar => row.similar += 1,
            }
        }
        by_size.into_values().collect()
    }
}

/// One column of Table 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DistributionRow {
    pub dataset: usize,
    pub gain: usize,
    pub loss: usize,
    pub similar: usize,
}

impl DistributionRow {
    /// MAPs counted.
    pub fn total(&self) -> usize {
        self.gain + self.loss + self.similar
    }

    /// `count` as a whole percentage of the total, rounded down as Table 5 does.
    pub fn percent(&self, count: usize) -> usize {
        (count * 100).checked_div(self.total()).unwrap_or(0)
    }
}

/// The table of a device: from the 2014 history for historical devices, otherwise from the
/// measured samples (b from `nolocal`, B from `local_variant`; a record needs both measured).
pub fn map_table(
    db: &Database,
    device: &clmap_db::DeviceRecord,
    local_variant: &str,
) -> Result<MapTable, DbError> {
    store::ensure_schema(db)?;
    let records = if device.identity.kind == "historical" {
        history_records(db, device.id)?
    } else {
        measured_records(db, device.id, local_variant)?
    };
    Ok(MapTable { device: device.label(), local_variant: local_variant.to_string(), records })
}

fn history_records(db: &Database, device_id: i64) -> Result<Vec<MapRecord>, DbError> {
    let mut stmt = db.connection().prepare(
        "SELECT map, dataset, b_mean, b_std, big_b_mean, big_b_std, mbr_mean
         FROM aristotle_history WHERE device_id = ?1 ORDER BY map, dataset",
    )?;
    let rows = stmt.query_map([device_id], |row| {
        Ok(MapRecord {
            map: u16::try_from(row.get::<_, i64>(0)?).unwrap_or(0),
            dataset: usize::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
            b_mean: row.get(2)?,
            b_std: row.get(3)?,
            big_b_mean: row.get(4)?,
            big_b_std: row.get(5)?,
            mbr: row.get(6)?,
            work_group: None,
            samples: None,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn measured_records(
    db: &Database,
    device_id: i64,
    local_variant: &str,
) -> Result<Vec<MapRecord>, DbError> {
    // Per (MAP, dataset, work-group): the (mean, std) of b and of B as they are found. b and
    // B pair only when timed with the same work-group.
    type Pair = (Option<(f64, f64, usize)>, Option<(f64, f64, usize)>);
    let mut by_key: BTreeMap<(u16, usize, [usize; 2]), Pair> = BTreeMap::new();
    for unit in store::units(db, device_id)? {
        if unit.status != "measured" || unit.samples == 0 {
            continue;
        }
        let entry = by_key.entry((unit.key.map, unit.key.dataset, unit.work_group)).or_default();
        let stats = Some((unit.bandwidth_mean, unit.bandwidth_std, unit.samples));
        if unit.key.variant == NO_LOCAL_VARIANT {
            entry.0 = stats;
        } else if unit.key.variant == local_variant {
            entry.1 = stats;
        }
    }
    Ok(by_key
        .into_iter()
        .filter_map(|((map, dataset, work_group), pair)| match pair {
            (Some((b_mean, b_std, b_n)), Some((big_b_mean, big_b_std, big_b_n))) => {
                Some(MapRecord {
                    map,
                    dataset,
                    b_mean,
                    b_std,
                    big_b_mean,
                    big_b_std,
                    mbr: if b_mean > 0.0 { big_b_mean / b_mean } else { f64::NAN },
                    work_group: Some(work_group),
                    samples: Some([b_n, big_b_n]),
                })
            }
            _ => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(map: u16, dataset: usize, mbr: f64) -> MapRecord {
        MapRecord::with_ratio(map, dataset, mbr)
    }

    #[test]
    fn impact_thresholds_follow_table_5() {
        assert_eq!(Impact::of(1.06, 0.05), Impact::Gain);
        assert_eq!(Impact::of(1.05, 0.05), Impact::Similar);
        assert_eq!(Impact::of(0.95, 0.05), Impact::Similar);
        assert_eq!(Impact::of(0.94, 0.05), Impact::Loss);
        assert_eq!(Impact::of(f64::NAN, 0.05), Impact::Similar);
    }

    #[test]
    fn distribution_counts_per_dataset() {
        let table = MapTable {
            device: "d".into(),
            local_variant: "max".into(),
            records: vec![
                record(107, 128, 2.0),
                record(108, 128, 0.5),
                record(109, 128, 1.0),
                record(107, 256, 2.0),
            ],
        };
        let rows = table.distribution(DEFAULT_DELTA);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].gain, rows[0].loss, rows[0].similar), (1, 1, 1));
        assert_eq!(rows[0].percent(1), 33);
        assert_eq!((rows[1].dataset, rows[1].gain), (256, 1));
        assert_eq!(table.datasets(), vec![128, 256]);
        assert_eq!(table.maps(), vec![107, 108, 109]);
    }
}
