//! Fairy-Stockfish as a child process, driven over UCI on its stdin and stdout, for perft.
//!
//! The engine is built outside the project by `tests/tools/build-fairy-stockfish.sh`; `FSF`
//! names the binary. Only the `go perft` exchange is timed: starting the process, choosing
//! the variant and setting up the position happen before the clock starts.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use super::Run;

/// How to get an engine when `FSF` is not set.
const HOW_TO_BUILD: &str = "FSF is not set: build Fairy-Stockfish with \
     `sh tests/tools/build-fairy-stockfish.sh DIR SOURCE` and run with FSF=DIR/src/stockfish";

/// A running engine playing one variant.
pub struct FairyStockfish {
    child: Child,
    to_engine: ChildStdin,
    from_engine: BufReader<ChildStdout>,
    /// The engine's `id name` line, e.g. "Fairy-Stockfish 14.0.1 LB".
    pub name: String,
}

impl FairyStockfish {
    /// The engine `FSF` names, switched to `variant`; `Err` says why it could not start.
    pub fn from_env(variant: &str) -> Result<Self, String> {
        let path = std::env::var("FSF").map_err(|_| HOW_TO_BUILD.to_string())?;
        let mut child = Command::new(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{path}: {e}"))?;
        let to_engine = child.stdin.take().expect("piped stdin");
        let from_engine = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut engine = FairyStockfish {
            child,
            to_engine,
            from_engine,
            name: path,
        };
        let variants = engine.handshake()?;
        if !variants.split_whitespace().any(|word| word == variant) {
            return Err(format!(
                "{} does not know {variant} (boards above 8x8 need the largeboards=yes build)",
                engine.name
            ));
        }
        engine.send(&format!("setoption name UCI_Variant value {variant}"))?;
        Ok(engine)
    }

    /// `uci` until `uciok`: keeps the engine's name and returns the `UCI_Variant` option's
    /// line, which lists the variants this build knows (`var xiangqi`). The engine ignores a
    /// value outside that list, so it is checked before the variant is set.
    fn handshake(&mut self) -> Result<String, String> {
        self.send("uci")?;
        let mut variants = String::new();
        loop {
            let line = self.line()?;
            if let Some(id) = line.strip_prefix("id name ") {
                self.name = id.trim().to_string();
            }
            if line.starts_with("option name UCI_Variant ") {
                variants = line.clone();
            }
            if line.trim() == "uciok" {
                return Ok(variants);
            }
        }
    }

    /// Perft from the variant's start, timed from sending `go perft` to `Nodes searched`.
    pub fn perft(&mut self, depth: u32) -> Result<Run, String> {
        self.send("position startpos")?;
        self.wait_ready()?;
        let start = Instant::now();
        self.send(&format!("go perft {depth}"))?;
        loop {
            let line = self.line()?;
            if let Some(count) = line.strip_prefix("Nodes searched:") {
                let secs = start.elapsed().as_secs_f64();
                let nodes = count
                    .trim()
                    .parse()
                    .map_err(|_| format!("unreadable node count: {line}"))?;
                return Ok(Run { nodes, secs });
            }
        }
    }

    /// `isready` until `readyok`: the engine has read everything sent before.
    fn wait_ready(&mut self) -> Result<(), String> {
        self.send("isready")?;
        while self.line()?.trim() != "readyok" {}
        Ok(())
    }

    fn send(&mut self, command: &str) -> Result<(), String> {
        writeln!(self.to_engine, "{command}")
            .and_then(|()| self.to_engine.flush())
            .map_err(|e| format!("writing to {}: {e}", self.name))
    }

    /// The engine's next line; an error if it closed its output (it exited).
    fn line(&mut self) -> Result<String, String> {
        let mut line = String::new();
        match self.from_engine.read_line(&mut line) {
            Ok(0) => Err("the engine exited".to_string()),
            Ok(_) => Ok(line),
            Err(e) => Err(format!("reading from the engine: {e}")),
        }
    }
}

impl Drop for FairyStockfish {
    /// `quit` and reap the process, so no engine outlives the bench.
    fn drop(&mut self) {
        if self.send("quit").is_err() || self.child.wait().is_err() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
