//! `referee serve` run as a child process, as an operator runs it: memory and signals are
//! observed from outside, as an operator sees them.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running `referee serve --addr 127.0.0.1:0 --data DATA ...`.
pub struct ServeProcess {
    child: Child,
    /// `http://ADDR`, as read from "referee listening on ADDR".
    pub url: String,
    /// The console's address (`127.0.0.1:PORT`) when started with `--console`.
    pub console: Option<String>,
    stderr_path: std::path::PathBuf,
}

impl ServeProcess {
    /// Starts the server on a free port with its log in `dir/data` and `flags` added; its
    /// standard error goes to `dir/serve.stderr`, so a test can read what it said.
    pub fn start(dir: &Path, flags: &[&str]) -> ServeProcess {
        let data = dir.join("data");
        let stderr_path = dir.join("serve.stderr");
        let stderr = File::create(&stderr_path).expect("stderr file");
        let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(["serve", "--addr", "127.0.0.1:0", "--data"])
            .arg(&data)
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .expect("start referee serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        // Scripts and tests read each address as the last word of its line.
        let mut last_word = || {
            let mut line = String::new();
            stdout.read_line(&mut line).expect("read a listening line");
            line.trim().rsplit(' ').next().expect("address").to_owned()
        };
        let addr = last_word();
        let console = flags.contains(&"--console").then(|| {
            let url = last_word();
            let bare = url.trim_start_matches("http://").trim_end_matches('/');
            bare.to_string()
        });
        ServeProcess {
            child,
            url: format!("http://{addr}"),
            console,
            stderr_path,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's resident memory now (VmRSS), in KiB.
    pub fn rss_kib(&self) -> u64 {
        self.status_kib("VmRSS:")
    }

    /// The most resident memory the server has had since it started (VmHWM), in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        self.status_kib("VmHWM:")
    }

    fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc/PID/status (Linux)");
        let line = status
            .lines()
            .find(|l| l.starts_with(field))
            .unwrap_or_else(|| panic!("no {field} in /proc/PID/status"));
        line.split_whitespace()
            .nth(1)
            .and_then(|kib| kib.parse().ok())
            .unwrap_or_else(|| panic!("unreadable {line:?}"))
    }

    /// Sends the signal `name` (TERM, INT) with kill(1).
    pub fn signal(&self, name: &str) {
        let sent = Command::new("kill")
            .args(["-s", name, &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -s {name} failed");
    }

    /// Waits up to `limit` for the process to exit: its status, or None if it still runs.
    pub fn wait_for_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// What the server wrote to standard error so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        // A test that failed half-way must not leave a server behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
