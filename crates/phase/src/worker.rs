//! The device side of a search in a child process, restarted after a candidate breaks the
//! device.
//!
//! A kernel that accesses an illegal address on an NVIDIA GPU leaves the whole process without
//! a usable device: the context fails every later command, and NVIDIA's OpenCL refuses a new
//! context in that process (`CL_NV_ILLEGAL_ADDRESS`). The search therefore keeps its state
//! (compiler, strategy, database, baselines, counts) in its own process and runs the device
//! work in a worker process of the same binary: [`serve`] answers an [`Evaluator`]'s calls read
//! from standard input, and [`WorkerEvaluator`] is the [`Evaluator`] the search talks to. When
//! a candidate breaks the device, the search stores it as failed and [`Evaluator::recover`]
//! replaces the worker by a fresh one; nothing else is redone.
//!
//! The protocol: each request is one JSON line ([`Request`]), followed by the PTX's bytes when
//! the request carries one (their count is in the line). Each answer is one line starting with
//! [`ANSWER_TAG`] followed by JSON ([`Answer`]); other lines on the worker's standard output
//! (a driver's chatter) are passed on to standard error, as is anything before the tag on an
//! answer's line. A worker first answers
//! [`Answer::Ready`] (or [`Answer::StartFailed`]) before reading any request.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::compiler::CompiledPtx;
use crate::evaluator::{median, Evaluator, EvaluatorError, Verdict};

/// Every answer line of a worker starts with this, so that anything else a driver prints on
/// standard output cannot be mistaken for an answer.
pub const ANSWER_TAG: &str = "@clmap-phase-worker ";

/// The PTX a request carries: its hash, and how many bytes follow the request line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtxHeader {
    /// The PTX's hash.
    pub hash: String,
    /// Bytes of PTX text after the line.
    pub len: usize,
}

/// One call of the [`Evaluator`] trait.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum Request {
    /// [`Evaluator::validate_small`].
    ValidateSmall { ptx: PtxHeader },
    /// [`Evaluator::validate_full`].
    ValidateFull { ptx: PtxHeader, seed_shift: u64 },
    /// [`Evaluator::time_ptx`], or [`Evaluator::time_ptx_screened`] with `give_up_ns`.
    TimePtx { ptx: PtxHeader, reps: u32, give_up_ns: Option<u64> },
    /// [`Evaluator::time_source`].
    TimeSource { reps: u32 },
    /// [`Evaluator::validate_aliased`].
    ValidateAliased { ptx: PtxHeader },
}

impl Request {
    fn ptx(&self) -> Option<&PtxHeader> {
        match self {
            Request::ValidateSmall { ptx }
            | Request::ValidateFull { ptx, .. }
            | Request::TimePtx { ptx, .. }
            | Request::ValidateAliased { ptx } => Some(ptx),
            Request::TimeSource { .. } => None,
        }
    }
}

/// A worker's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The worker has its device and reference, and reads requests now. `info` describes the
    /// device in whatever form the worker's owner chose (the OpenCL device's properties), so
    /// that the search process never has to open the device itself.
    Ready {
        device: String,
        #[serde(default)]
        info: serde_json::Value,
    },
    /// The worker could not set up its device (it exits after this answer).
    StartFailed { error: String },
    /// A verdict ([`Request::ValidateSmall`], [`Request::ValidateFull`]).
    Verdict(Verdict),
    /// A timing ([`Request::TimePtx`]).
    Timing(Result<Vec<u64>, Verdict>),
    /// Samples of the source ([`Request::TimeSource`]).
    Samples(Vec<u64>),
    /// Verdicts per aliased layout ([`Request::ValidateAliased`]).
    Aliased(Vec<(String, Verdict)>),
    /// The call failed with an [`EvaluatorError`]: the device is no longer usable.
    DeviceError(String),
}

fn write_answer(output: &mut impl Write, answer: &Answer) -> std::io::Result<()> {
    let json = serde_json::to_string(answer).map_err(std::io::Error::other)?;
    writeln!(output, "{ANSWER_TAG}{json}")?;
    output.flush()
}

/// Tells the search that the worker could not set up its device (the worker then exits).
pub fn refuse(output: &mut impl Write, error: &str) -> std::io::Result<()> {
    write_answer(output, &Answer::StartFailed { error: error.to_string() })
}

/// Serves `evaluator` (already set up: [`Answer::Ready`] with `info` is sent first) to requests
/// read from `input`, until `input` ends. A request that cannot be read ends the loop with an
/// error.
pub fn serve(
    evaluator: &mut dyn Evaluator,
    info: serde_json::Value,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> std::io::Result<()> {
    write_answer(output, &Answer::Ready { device: evaluator.describe(), info })?;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        let request: Request = serde_json::from_str(line.trim()).map_err(|e| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, format!("bad request: {e}"))
        })?;
        let ptx = match request.ptx() {
            Some(header) => {
                let mut text = vec![0u8; header.len];
                input.read_exact(&mut text)?;
                Some(CompiledPtx { text, hash: header.hash.clone() })
            }
            None => None,
        };
        let answer = answer(evaluator, &request, ptx.as_ref());
        write_answer(output, &answer)?;
    }
}

fn answer(evaluator: &mut dyn Evaluator, request: &Request, ptx: Option<&CompiledPtx>) -> Answer {
    let failed = |e: EvaluatorError| Answer::DeviceError(e.0);
    let Some(ptx) = ptx else {
        return match request {
            Request::TimeSource { reps } => {
                evaluator.time_source(*reps).map_or_else(failed, Answer::Samples)
            }
            _ => Answer::DeviceError("a request without its PTX".to_string()),
        };
    };
    match request {
        Request::ValidateSmall { .. } => {
            evaluator.validate_small(ptx).map_or_else(failed, Answer::Verdict)
        }
        Request::ValidateFull { seed_shift, .. } => {
            evaluator.validate_full(ptx, *seed_shift).map_or_else(failed, Answer::Verdict)
        }
        Request::TimePtx { reps, give_up_ns: Some(limit), .. } => {
            evaluator.time_ptx_screened(ptx, *reps, *limit).map_or_else(failed, Answer::Timing)
        }
        Request::TimePtx { reps, give_up_ns: None, .. } => {
            evaluator.time_ptx(ptx, *reps).map_or_else(failed, Answer::Timing)
        }
        Request::ValidateAliased { .. } => {
            evaluator.validate_aliased(ptx).map_or_else(failed, Answer::Aliased)
        }
        Request::TimeSource { reps } => {
            evaluator.time_source(*reps).map_or_else(failed, Answer::Samples)
        }
    }
}

/// How long a worker may take before it is taken for hung and stopped.
#[derive(Clone, Copy, Debug)]
pub struct WorkerLimits {
    /// Starting up: the device, the source's build and the small reference.
    pub start: Duration,
    /// Any request, at least (a small validation, a first timing).
    pub request: Duration,
    /// A request may also take this many times the source's time per full-workload run it
    /// makes (a candidate can be much slower than the source without being hung).
    pub slowdown: u32,
}

impl Default for WorkerLimits {
    fn default() -> WorkerLimits {
        WorkerLimits {
            start: Duration::from_secs(300),
            request: Duration::from_secs(300),
            slowdown: 50,
        }
    }
}

/// A running worker process.
struct Worker {
    child: Child,
    /// Requests for the writer thread.
    requests: Sender<Vec<u8>>,
    /// Answers from the reader thread (and the writer's failures).
    answers: Receiver<std::io::Result<String>>,
}

/// Blocks SIGPIPE in the calling thread: a write to a worker that has died then fails with an
/// error instead of ending clmap (whose SIGPIPE keeps its default action, see `main`).
fn ignore_broken_pipes_in_this_thread() {
    #[cfg(unix)]
    // SAFETY: the set is initialised by sigemptyset before use, and changing the calling
    // thread's signal mask has no other precondition.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Writes each request to the worker's standard input, from a thread of its own so that a
/// worker that stopped reading cannot block the search (which waits for answers with a limit).
fn spawn_writer(
    mut stdin: ChildStdin,
    failures: Sender<std::io::Result<String>>,
) -> Sender<Vec<u8>> {
    let (requests, incoming) = channel::<Vec<u8>>();
    std::thread::spawn(move || {
        ignore_broken_pipes_in_this_thread();
        for bytes in incoming {
            if let Err(e) = stdin.write_all(&bytes).and_then(|()| stdin.flush()) {
                let _ = failures.send(Err(e));
                return;
            }
        }
    });
    requests
}

impl Worker {
    fn stop(mut self) {
        drop(self.requests);
        // A worker stuck in a kernel or a driver call does not read its input any more.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An [`Evaluator`] whose calls run in a worker process that [`serve`]s them; see the module
/// documentation. [`Evaluator::recover`] starts a fresh worker.
pub struct WorkerEvaluator {
    spawn: Box<dyn Fn() -> Command + Send>,
    worker: Option<Worker>,
    description: String,
    /// What the last worker said about its device ([`Answer::Ready`]'s `info`).
    device_info: serde_json::Value,
    limits: WorkerLimits,
    /// The source's median time per full-workload run, once timed: sets the request limits.
    source_ns: Option<f64>,
    /// Seconds each start took, the first included.
    starts: Vec<f64>,
}

impl WorkerEvaluator {
    /// Starts the first worker: `spawn()` gives the command (its standard input, output are
    /// taken over; its standard error is passed through).
    pub fn start(
        spawn: Box<dyn Fn() -> Command + Send>,
        limits: WorkerLimits,
    ) -> Result<WorkerEvaluator, EvaluatorError> {
        let mut evaluator = WorkerEvaluator {
            spawn,
            worker: None,
            description: String::new(),
            device_info: serde_json::Value::Null,
            limits,
            source_ns: None,
            starts: Vec::new(),
        };
        evaluator.start_worker()?;
        Ok(evaluator)
    }

    /// What the worker said about its device when it started (`Null` when it said nothing).
    pub fn device_info(&self) -> &serde_json::Value {
        &self.device_info
    }

    fn start_worker(&mut self) -> Result<(), EvaluatorError> {
        if let Some(old) = self.worker.take() {
            old.stop();
        }
        let started = Instant::now();
        let mut command = (self.spawn)();
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = command
            .spawn()
            .map_err(|e| EvaluatorError(format!("cannot start the device worker: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(EvaluatorError("the device worker has no pipes".to_string()));
        };
        let (sender, answers) = channel();
        let requests = spawn_writer(stdin, sender.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = match line {
                    Ok(line) => line,
                    Err(e) => {
                        let _ = sender.send(Err(e));
                        return;
                    }
                };
                // Output of others may precede an answer on its line (a driver's message
                // without a newline): it is passed on, the answer taken from the tag on.
                match line.find(ANSWER_TAG) {
                    Some(at) => {
                        let (other, answer) = line.split_at(at);
                        if !other.trim().is_empty() {
                            eprintln!("{other}");
                        }
                        let answer = answer.get(ANSWER_TAG.len()..).unwrap_or_default();
                        if sender.send(Ok(answer.to_string())).is_err() {
                            return;
                        }
                    }
                    None => eprintln!("{line}"),
                }
            }
        });
        let mut worker = Worker { child, requests, answers };
        let ready = Self::receive(&mut worker, self.limits.start, "starting");
        match ready {
            Ok(Answer::Ready { device, info }) => {
                self.description = device;
                self.device_info = info;
                self.worker = Some(worker);
                self.starts.push(started.elapsed().as_secs_f64());
                Ok(())
            }
            Ok(Answer::StartFailed { error }) => {
                worker.stop();
                Err(EvaluatorError(error))
            }
            Ok(other) => {
                worker.stop();
                Err(EvaluatorError(format!("the device worker started with {other:?}")))
            }
            Err(error) => {
                worker.stop();
                Err(error)
            }
        }
    }

    /// The next answer of `worker`, or an error when it exits, says something unreadable or
    /// takes longer than `limit`.
    fn receive(
        worker: &mut Worker,
        limit: Duration,
        doing: &str,
    ) -> Result<Answer, EvaluatorError> {
        match worker.answers.recv_timeout(limit) {
            Ok(Ok(line)) => serde_json::from_str(&line).map_err(|e| {
                EvaluatorError(format!("the device worker answered `{line}` while {doing}: {e}"))
            }),
            Ok(Err(e)) => Err(EvaluatorError(format!(
                "the device worker's pipes failed while {doing} ({e}): it may have crashed"
            ))),
            Err(RecvTimeoutError::Timeout) => Err(EvaluatorError(format!(
                "the device worker did not finish {doing} within {} s (a kernel that does not \
                 end?); it was stopped",
                limit.as_secs()
            ))),
            Err(RecvTimeoutError::Disconnected) => {
                let status = worker.child.wait().map(|s| s.to_string()).unwrap_or_default();
                Err(EvaluatorError(format!(
                    "the device worker ended while {doing} ({status}): the driver may have \
                     crashed on the kernel"
                )))
            }
        }
    }

    /// The limit of a request that makes `runs` full-workload runs.
    fn limit(&self, runs: u32) -> Duration {
        let per_run = self.source_ns.unwrap_or(0.0) * f64::from(self.limits.slowdown);
        self.limits.request + Duration::from_secs_f64(per_run * f64::from(runs) / 1e9)
    }

    /// Sends `request` (with `ptx`) and waits for the answer; any failure of the worker itself
    /// is an [`EvaluatorError`], like a device that stopped working.
    fn call(
        &mut self,
        request: Request,
        ptx: Option<&CompiledPtx>,
        limit: Duration,
    ) -> Result<Answer, EvaluatorError> {
        let Some(worker) = self.worker.as_mut() else {
            return Err(EvaluatorError("the device worker is not running".to_string()));
        };
        let doing = match &request {
            Request::ValidateSmall { .. } => "validating on the small inputs",
            Request::ValidateFull { .. } => "validating on the full inputs",
            Request::TimePtx { .. } => "timing a candidate",
            Request::TimeSource { .. } => "timing the source",
            Request::ValidateAliased { .. } => "validating on aliased inputs",
        };
        let line = serde_json::to_string(&request)
            .map_err(|e| EvaluatorError(format!("cannot encode a request: {e}")))?;
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        if let Some(ptx) = ptx {
            bytes.extend_from_slice(&ptx.text);
        }
        let answer = match worker.requests.send(bytes) {
            Ok(()) => Self::receive(worker, limit, doing),
            Err(_) => Err(EvaluatorError("the device worker takes no more requests".to_string())),
        };
        match answer {
            Ok(Answer::DeviceError(message)) => Err(EvaluatorError(message)),
            Ok(answer) => Ok(answer),
            Err(error) => {
                // A worker that failed this way cannot be trusted with the next request.
                if let Some(worker) = self.worker.take() {
                    worker.stop();
                }
                Err(error)
            }
        }
    }

    fn header(ptx: &CompiledPtx) -> PtxHeader {
        PtxHeader { hash: ptx.hash.clone(), len: ptx.text.len() }
    }

    /// Times a candidate in the worker, stopping after the warm-up when `give_up_ns` is set
    /// and the warm-up exceeds it (the search's screening).
    fn time_ptx_within(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
        give_up_ns: Option<u64>,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        let request = Request::TimePtx { ptx: Self::header(ptx), reps, give_up_ns };
        match self.call(request, Some(ptx), self.limit(reps.saturating_add(1)))? {
            Answer::Timing(timing) => Ok(timing),
            other => Err(unexpected(other)),
        }
    }
}

fn unexpected(answer: Answer) -> EvaluatorError {
    EvaluatorError(format!("the device worker gave an unexpected answer: {answer:?}"))
}

impl Evaluator for WorkerEvaluator {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn validate_small(&mut self, ptx: &CompiledPtx) -> Result<Verdict, EvaluatorError> {
        let limit = self.limit(0);
        match self.call(Request::ValidateSmall { ptx: Self::header(ptx) }, Some(ptx), limit)? {
            Answer::Verdict(verdict) => Ok(verdict),
            other => Err(unexpected(other)),
        }
    }

    fn validate_full(
        &mut self,
        ptx: &CompiledPtx,
        seed_shift: u64,
    ) -> Result<Verdict, EvaluatorError> {
        let request = Request::ValidateFull { ptx: Self::header(ptx), seed_shift };
        // The candidate's run, and the reference's on inputs not seen before.
        match self.call(request, Some(ptx), self.limit(2))? {
            Answer::Verdict(verdict) => Ok(verdict),
            other => Err(unexpected(other)),
        }
    }

    fn time_ptx(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        self.time_ptx_within(ptx, reps, None)
    }

    fn time_ptx_screened(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
        give_up_ns: u64,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        self.time_ptx_within(ptx, reps, Some(give_up_ns))
    }

    fn time_source(&mut self, reps: u32) -> Result<Vec<u64>, EvaluatorError> {
        // Before the source's time is known, its runs are bounded by the start's limit each.
        let runs = reps.saturating_add(1);
        let limit = match self.source_ns {
            Some(_) => self.limit(runs),
            None => self.limits.start.saturating_mul(runs),
        };
        let answer = self.call(Request::TimeSource { reps }, None, limit);
        match answer? {
            Answer::Samples(samples) => {
                if let Some(time) = median(&samples) {
                    self.source_ns = Some(self.source_ns.map_or(time, |known| known.max(time)));
                }
                Ok(samples)
            }
            other => Err(unexpected(other)),
        }
    }

    fn validate_aliased(
        &mut self,
        ptx: &CompiledPtx,
    ) -> Result<Vec<(String, Verdict)>, EvaluatorError> {
        let request = Request::ValidateAliased { ptx: Self::header(ptx) };
        match self.call(request, Some(ptx), self.limit(0))? {
            Answer::Aliased(verdicts) => Ok(verdicts),
            other => Err(unexpected(other)),
        }
    }

    fn recover(&mut self) -> Result<(), EvaluatorError> {
        self.start_worker()
    }

    fn start_seconds(&self) -> Vec<f64> {
        self.starts.clone()
    }
}

impl Drop for WorkerEvaluator {
    fn drop(&mut self) {
        if let Some(worker) = self.worker.take() {
            worker.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_round_trip_as_json_lines() {
        let request = Request::TimePtx {
            ptx: PtxHeader { hash: "abc".into(), len: 12 },
            reps: 3,
            give_up_ns: Some(5),
        };
        let line = serde_json::to_string(&request).unwrap();
        assert!(!line.contains('\n'));
        assert_eq!(serde_json::from_str::<Request>(&line).unwrap(), request);
        for answer in [
            Answer::Verdict(Verdict::Wrong("output `q` differs".into())),
            Answer::Timing(Err(Verdict::Failed("the kernel did not run".into()))),
            Answer::Timing(Ok(vec![1, 2])),
            Answer::Aliased(vec![("q=a".into(), Verdict::Valid)]),
            Answer::DeviceError("CL_OUT_OF_RESOURCES".into()),
        ] {
            let line = serde_json::to_string(&answer).unwrap();
            assert_eq!(serde_json::from_str::<Answer>(&line).unwrap(), answer);
        }
    }
}
