//! Tuning: from a kernel and its workload to the fastest correct variant per device.
//!
//! ```text
//! producers (as written, Grover unlocal, local staging, work-group sizes) ─► variants
//!     ─► validate on the simulator (differential, random inputs, checkers) ─► check on device
//!     ─► time (profiling events) ─► performance database ─► winner, speedup, advisor's verdict
//! ```
//!
//! Every variant is one decision changed from the kernel as written, so its speedup says what
//! that decision is worth. Producers are a list ([`producers::default_producers`]); a new
//! transform joins by adding one. Results are stored per device, workload and variant
//! ([`store`]) as soon as each is settled: a second run answers from the database, and an
//! interrupted one resumes.

pub mod producers;
pub mod report;
pub mod session;
pub mod store;
pub mod target;
pub mod variant;

pub use producers::{
    combined_stage_name, default_producers, AsWritten, CombinedStaging, DeviceLimits,
    GroverUnlocal, LocalStaging, Subject, VariantProducer, WorkGroupChoice, WorkGroupSizes,
};
pub use report::{AdvisorAnswer, Prediction, TuneReport, VariantResult};
pub use session::{tune, Budget, Progress, Step, TuneError, TuneOptions, Validator};
pub use store::{Settled, TuneStore};
pub use target::{simulator_identity, TuneTarget};
pub use variant::{Construction, Layout, Produced, ProducerValidation, RefusedVariant, Variant};

/// Builds every variant the producers make for `subject`, in producer order, names unique.
pub fn build_variants(
    producers: &[Box<dyn VariantProducer>],
    subject: &Subject<'_>,
    progress: &mut dyn FnMut(&str, usize),
) -> Vec<Produced> {
    let mut out: Vec<Produced> = Vec::new();
    for producer in producers {
        let made = producer.produce(subject);
        progress(producer.label(), made.len());
        for item in made {
            let name = match &item {
                Ok(v) => &v.name,
                Err(r) => &r.name,
            };
            let taken = out.iter().any(|o| match o {
                Ok(v) => &v.name == name,
                Err(r) => &r.name == name,
            });
            if !taken {
                out.push(item);
            }
        }
    }
    out
}
