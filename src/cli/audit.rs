//! `referee audit export|verify|key`: signed, self-contained bundles of a game's log.

use std::path::Path;
use std::process::ExitCode;

use crate::audit;
use crate::event::read_text;
use crate::log::SledLog;

pub fn export(game: &str, data: &Path, out: Option<&Path>) -> ExitCode {
    let result = (|| {
        let key = audit::load_or_create_key(data).map_err(|e| e.to_string())?;
        let log = open_log(data)?;
        let bundle = runtime()?
            .block_on(audit::export(&log, game, &key, now_ms()))
            .map_err(|e| e.to_string())?;
        write_out(out, &bundle)
    })();
    finish(result)
}

pub fn tournament(
    event: &str,
    data: &Path,
    out: Option<&Path>,
    pairings: Option<&Path>,
) -> ExitCode {
    let result = (|| {
        let pairings = match pairings {
            None => audit::Pairings::default(),
            Some(path) => read_text(path).map_err(|e| e.to_string()).and_then(|t| {
                audit::Pairings::from_jsonl(&t).map_err(|e| format!("{}: {e}", path.display()))
            })?,
        };
        let key = audit::load_or_create_key(data).map_err(|e| e.to_string())?;
        let log = open_log(data)?;
        let export = runtime()?
            .block_on(audit::export_tournament(
                &log,
                event,
                &pairings,
                &key,
                now_ms(),
            ))
            .map_err(|e| e.to_string())?;
        for warning in &export.warnings {
            eprintln!("referee: warning: {warning}");
        }
        write_out(out, &export.text)
    })();
    finish(result)
}

fn open_log(data: &Path) -> Result<SledLog, String> {
    SledLog::open(data).map_err(|e| format!("cannot open the log in {}: {e}", data.display()))
}

/// A runtime of this thread to wait on the log's reads, which are async.
fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn write_out(out: Option<&Path>, text: &str) -> Result<(), String> {
    match out {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

pub fn verify(file: &Path, key: Option<&str>) -> ExitCode {
    // A malformed key is the auditor's mistake, not a bundle signed by someone else.
    if let Some(Err(e)) = key.map(audit::expected_key) {
        eprintln!("referee: --{e}");
        return ExitCode::from(2);
    }
    let text = match read_text(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("referee: {e}");
            return ExitCode::from(2);
        }
    };
    match audit::verify(&text, key) {
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            ExitCode::from(2)
        }
        Ok(report) => {
            for held in &report.held {
                println!("ok      {held}");
            }
            for problem in &report.problems {
                println!("PROBLEM {problem}");
            }
            if report.ok() {
                println!("the bundle holds");
                ExitCode::SUCCESS
            } else {
                println!(
                    "the bundle does NOT hold: {} problem(s)",
                    report.problems.len()
                );
                ExitCode::FAILURE
            }
        }
    }
}

pub fn key(data: &Path) -> ExitCode {
    finish(
        audit::load_or_create_key(data)
            .map(|k| println!("{}", audit::public_key_hex(&k)))
            .map_err(|e| e.to_string()),
    )
}

fn finish(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}
