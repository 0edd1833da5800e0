//! Where a build's time and memory went: the start of each step, and the peak resident
//! memory, printed when the build ends.

use std::time::Instant;

/// When each step of a build started, to say where the time went.
#[derive(Clone, Default)]
pub struct Steps(std::sync::Arc<std::sync::Mutex<Vec<(String, Instant)>>>);

impl Steps {
    pub fn start(&self, what: &str) {
        if let Ok(mut v) = self.0.lock() {
            v.push((what.to_string(), Instant::now()));
        }
    }

    /// `step 1.2s, step 0.3s, …` up to now.
    pub fn summary(&self) -> String {
        let v = self.0.lock().map(|v| v.clone()).unwrap_or_default();
        let end = [Instant::now()];
        let ends = v.iter().skip(1).map(|(_, t)| t).chain(&end);
        v.iter().zip(ends).map(|((what, t0), t1)| format!("{what} {:.1}s", (*t1 - *t0).as_secs_f64())).collect::<Vec<_>>().join(", ")
    }
}

/// The process's peak resident memory, kB (Linux's `VmHWM`).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
