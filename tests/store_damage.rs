//! The damaged-store suite (issue 20): a store of 30 games x 60 events, appended round-robin
//! one commit per event and closed cleanly, is damaged in every way the fault runs found —
//! single-byte flips across sled's `db` file, edits inside stored records, truncations to 0,
//! 4 KiB, half, 90% and the tail, a removed `db`, damage to the anchor itself — and opened
//! again. For each trial the only acceptable outcomes are: the open is refused with a message,
//! or every game is either served identical to what was acknowledged or refused as DATA_LOSS.
//! Never a silent rollback (a game served short or different), never a panic.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use referee::log::{ANCHOR_FILE, Error, Log, NewEvent, Record, SledLog};

use crate::common::report::say;

/// The reports (see `common::report`) of the damage suite and of serving a truncated db.
const SUITE_REPORT: &str = "store_damage-suite";
const TRUNCATED_REPORT: &str = "store_damage-truncated-db";

const GAMES: usize = 30;
const EVENTS: u64 = 60;

type Acknowledged = BTreeMap<String, Vec<Record>>;

/// What opening a damaged copy gave.
#[derive(Debug)]
enum Outcome {
    /// The open failed with this message.
    Refused(String),
    /// The store opened: games served identical, games refused as DATA_LOSS.
    Served { identical: usize, lost: Vec<String> },
    /// A game served short of or different from what was acknowledged, or missing without
    /// an error: the failure this suite exists to catch.
    Silent(String),
    /// A panic escaped.
    Panicked(String),
}

fn game_id(g: usize) -> String {
    format!("2026-ch-r1-b{g:02}")
}

fn body(g: usize, n: u64) -> String {
    format!(
        r#"{{"type":"clock","side":"white","remaining_ms":{},"board":{g}}}"#,
        900_000 - n
    )
}

/// Builds the store in `dir` and returns every acknowledged record.
fn generate(dir: &Path) -> Acknowledged {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let log = SledLog::open(dir).expect("open");
        for g in 0..GAMES {
            let header = format!(r#"{{"variant":"xiangqi","id":"{}"}}"#, game_id(g));
            log.create(&game_id(g), header, "test")
                .await
                .expect("io")
                .expect("created");
        }
        for n in 1..=EVENTS {
            for g in 0..GAMES {
                let event = NewEvent {
                    event_id: format!("b{g}-{n}"),
                    body: body(g, n),
                    writer: "test".into(),
                };
                log.append(&game_id(g), n, vec![event])
                    .await
                    .expect("io")
                    .expect("appended");
            }
        }
        let mut acked = Acknowledged::new();
        for g in 0..GAMES {
            let records = log
                .read(&game_id(g), 0, None)
                .await
                .expect("io")
                .expect("game");
            acked.insert(game_id(g), records);
        }
        acked
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Opens the damaged store and holds every game to what was acknowledged.
fn judge(dir: &Path, acked: &Acknowledged) -> Outcome {
    let log = match SledLog::open(dir) {
        Ok(log) => log,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    runtime.block_on(judge_games(&log, acked))
}

/// Holds every game of the opened store to what was acknowledged.
async fn judge_games(log: &SledLog, acked: &Acknowledged) -> Outcome {
    let (mut identical, mut lost) = (0, Vec::new());
    for (game, records) in acked {
        match log.read(game, 0, None).await {
            Ok(Ok(served)) if &served == records => identical += 1,
            Ok(Ok(served)) => {
                return Outcome::Silent(format!(
                    "game {game}: served {} records, {} acknowledged",
                    served.len(),
                    records.len()
                ));
            }
            Ok(Err(rejection)) => return Outcome::Silent(format!("game {game}: {rejection}")),
            Err(Error::DataLoss { .. }) => {
                let listed = log.games().await.expect("games");
                if !listed.iter().any(|i| &i.game == game && i.damage.is_some()) {
                    return Outcome::Silent(format!("game {game}: DATA_LOSS but not listed so"));
                }
                lost.push(game.clone());
            }
            Err(e) => return Outcome::Silent(format!("game {game}: not DATA_LOSS: {e}")),
        }
    }
    Outcome::Served { identical, lost }
}

/// One trial: a fresh copy of the store, damaged by `damage`, then judged.
fn trial(
    pristine: &Path,
    scratch: &Path,
    acked: &Acknowledged,
    name: &str,
    damage: impl FnOnce(&Path),
) -> Outcome {
    let dir = scratch.join(name);
    copy_dir(pristine, &dir);
    damage(&dir);
    let outcome = catch_unwind(AssertUnwindSafe(|| judge(&dir, acked)))
        .unwrap_or_else(|p| Outcome::Panicked(format!("{p:?}")));
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).expect("read");
    bytes[at] ^= 0xff;
    std::fs::write(path, bytes).expect("write");
}

fn truncate(path: &Path, len: u64) {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open");
    file.set_len(len).expect("truncate");
}

/// Offsets in `db` of the stored bodies of a few records, to edit one character inside each.
fn record_offsets(db: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    for (g, n) in [
        (0, 1),
        (7, 20),
        (13, 33),
        (21, 45),
        (29, 59),
        (29, 60),
        (3, 60),
        (16, 2),
    ] {
        let needle = body(g, n);
        if let Some(at) = db
            .windows(needle.len())
            .rposition(|w| w == needle.as_bytes())
        {
            out.push(at + needle.len() - 3);
        }
    }
    out
}

#[derive(Default)]
struct Tally {
    /// Per kind of damage (the trial name up to its first '-'): refused, whole, with loss.
    kinds: BTreeMap<String, [usize; 3]>,
    refused: usize,
    served_whole: usize,
    served_with_loss: usize,
    games_lost: usize,
    failures: Vec<String>,
}

impl Tally {
    fn add(&mut self, name: &str, outcome: Outcome) {
        let kind = name.split('-').next().unwrap_or(name).to_owned();
        let counts = self.kinds.entry(kind).or_default();
        match &outcome {
            Outcome::Refused(_) => counts[0] += 1,
            Outcome::Served { lost, .. } if lost.is_empty() => counts[1] += 1,
            Outcome::Served { .. } => counts[2] += 1,
            _ => {}
        }
        match outcome {
            Outcome::Refused(message) => {
                assert!(
                    message.contains("restore") || message.contains("rebuild"),
                    "{name}: a refusal must say what to do: {message}"
                );
                self.refused += 1;
            }
            Outcome::Served { identical, lost } => {
                assert_eq!(
                    identical + lost.len(),
                    GAMES,
                    "{name}: every game accounted for"
                );
                if lost.is_empty() {
                    self.served_whole += 1;
                } else {
                    self.served_with_loss += 1;
                    self.games_lost += lost.len();
                }
            }
            Outcome::Silent(why) => self.failures.push(format!("{name}: silent: {why}")),
            Outcome::Panicked(why) => self.failures.push(format!("{name}: panic: {why}")),
        }
    }
}

/// sled panics on some damaged files; the referee catches it, but the default hook would print
/// a backtrace for each. On this test's thread a caught panic is one line; elsewhere the
/// default hook runs as before.
fn quiet_panics_on_this_thread() {
    let this = std::thread::current().id();
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == this {
            let at = info.location().map(|l| l.to_string()).unwrap_or_default();
            println!("  (a panic inside sled at {at}, caught)");
        } else {
            default(info);
        }
    }));
}

#[test]
fn a_damaged_store_is_refused_or_served_whole_never_rolled_back_silently() {
    quiet_panics_on_this_thread();
    let root = tempfile::tempdir().expect("tempdir");
    let pristine = root.path().join("pristine");
    let acked = generate(&pristine);
    crate::common::released(&pristine);
    let scratch = root.path().join("trials");
    let db_len = std::fs::metadata(pristine.join("db")).expect("db").len();
    let len = usize::try_from(db_len).expect("size");
    let mut tally = Tally::default();
    let mut trials = 0;
    let mut run = |name: String, damage: Box<dyn FnOnce(&Path)>| {
        trials += 1;
        let outcome = trial(&pristine, &scratch, &acked, &name, damage);
        tally.add(&name, outcome);
    };

    // Undamaged: every game served whole.
    run("none".into(), Box::new(|_| {}));
    // Single-byte flips: 25 spread over the file, 15 more in its last 40%.
    let spread = (0..25).map(|i| i * len / 25 + 17);
    let tail = (0..15).map(|i| len * 6 / 10 + i * (len * 4 / 10) / 15 + 5);
    for at in spread.chain(tail).filter(|&at| at < len) {
        run(
            format!("flip-{at}"),
            Box::new(move |d| flip(&d.join("db"), at)),
        );
    }
    // Edits inside stored records: one character of a body changed.
    let db = std::fs::read(pristine.join("db")).expect("db");
    let offsets = record_offsets(&db);
    assert!(
        offsets.len() >= 5,
        "found only {} stored bodies in db",
        offsets.len()
    );
    for at in offsets {
        run(
            format!("edit-{at}"),
            Box::new(move |d| flip(&d.join("db"), at)),
        );
    }
    // Truncations.
    for (label, to) in [
        ("0", 0),
        ("4k", 4096),
        ("half", db_len / 2),
        ("90pct", db_len * 9 / 10),
        ("tail-100", db_len.saturating_sub(100)),
        ("tail-1", db_len - 1),
    ] {
        run(
            format!("truncate-{label}"),
            Box::new(move |d| truncate(&d.join("db"), to)),
        );
    }
    // The whole of sled's files gone: an emptied store.
    run(
        "emptied".into(),
        Box::new(|d| {
            for entry in std::fs::read_dir(d).expect("dir").flatten() {
                if entry.file_name() != ANCHOR_FILE {
                    let path: PathBuf = entry.path();
                    if path.is_dir() {
                        std::fs::remove_dir_all(path).expect("rm");
                    } else {
                        std::fs::remove_file(path).expect("rm");
                    }
                }
            }
        }),
    );
    // The anchor itself: removed (refused: the store knows it had one), a byte flipped in a
    // middle line (the game it names is DATA_LOSS, the others served), cut in the middle of
    // its last line (a torn write: served whole).
    let anchor = std::fs::read(pristine.join(ANCHOR_FILE)).expect("anchor");
    let text_len = anchor.iter().position(|&b| b == 0).unwrap_or(anchor.len());
    run(
        "anchor-removed".into(),
        Box::new(|d| std::fs::remove_file(d.join(ANCHOR_FILE)).expect("rm")),
    );
    run(
        "anchor-flip".into(),
        Box::new(move |d| flip(&d.join(ANCHOR_FILE), text_len / 2)),
    );
    // A crash during the last anchor write: its last bytes never reached the disk.
    run(
        "anchor-torn".into(),
        Box::new(move |d| {
            let path = d.join(ANCHOR_FILE);
            let mut bytes = std::fs::read(&path).expect("read");
            bytes[text_len - 7..text_len].fill(0);
            std::fs::write(&path, bytes).expect("write");
        }),
    );
    // Bytes flipped in the anchor's zero padding (the fault runs' 9 flips of 10): rot, not
    // data, so every game is served whole; and in its lines after the format line: only the
    // games such a line may name are DATA_LOSS, never the whole store.
    let anchor_len = anchor.len();
    for i in 0..10 {
        let at = text_len + 1 + i * (anchor_len - text_len - 2) / 9;
        run(
            format!("anchorpad-{at}"),
            Box::new(move |d| flip(&d.join(ANCHOR_FILE), at)),
        );
    }
    // The anchor as the run left it has a line per commit; only each game's last line is its
    // last word (a damaged older line is superseded), so the flips go to the last lines.
    let newlines: Vec<usize> = (0..text_len).filter(|&i| anchor[i] == b'\n').collect();
    let last_lines = newlines[newlines.len() - GAMES - 1] + 1;
    for i in 0..6 {
        let at = last_lines + 1 + i * (text_len - last_lines - 3) / 5;
        let at = if anchor[at] == b'\n' { at + 1 } else { at };
        run(
            format!("anchorline-{at}"),
            Box::new(move |d| flip(&d.join(ANCHOR_FILE), at)),
        );
    }
    assert_eq!(
        tally.kinds.get("anchorpad"),
        Some(&[0, 10, 0]),
        "rot in the anchor's padding must cost nothing"
    );
    let [refused, _, lossy] = tally.kinds["anchorline"];
    assert_eq!(
        refused, 0,
        "a damaged anchor line must not refuse the store"
    );
    assert!(lossy > 0, "a damaged anchor line must take its game down");

    let summary = format!(
        "damaged-store suite: {trials} trials on a store of {GAMES} games x {EVENTS} events \
         (db {db_len} bytes): refused with a message {}, served whole {}, served with \
         DATA_LOSS for the damaged games {} ({} games lost in all), silent rollback or \
         difference {}, panic {}",
        tally.refused,
        tally.served_whole,
        tally.served_with_loss,
        tally.games_lost,
        tally
            .failures
            .iter()
            .filter(|f| f.contains("silent"))
            .count(),
        tally
            .failures
            .iter()
            .filter(|f| f.contains("panic"))
            .count(),
    );
    say(SUITE_REPORT, &summary);
    for (kind, [refused, whole, lossy]) in &tally.kinds {
        say(
            SUITE_REPORT,
            &format!(
                "  {kind}: refused {refused}, served whole {whole}, served with DATA_LOSS {lossy}"
            ),
        );
    }
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
    assert!(
        tally.served_whole >= 1,
        "the undamaged store must be served whole"
    );
}

/// A store written as an operator's imports write one: one open, one game and one close at a
/// time, so sled's files hold many recoveries' worth of segments.
fn generate_by_sessions(dir: &Path, games: usize) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    for g in 0..games {
        runtime.block_on(async {
            let log = SledLog::open(dir).expect("open");
            let id = format!("2026-imp-{g:03}");
            let header = format!(r#"{{"variant":"xiangqi","id":"{id}"}}"#);
            log.create(&id, header, "import")
                .await
                .expect("io")
                .expect("created");
            for n in 1..=8 {
                let event = NewEvent {
                    event_id: format!("{id}-{n}"),
                    body: body(g, n),
                    writer: "import".into(),
                };
                log.append(&id, n, vec![event])
                    .await
                    .expect("io")
                    .expect("appended");
            }
        });
        crate::common::released(dir);
    }
}

/// `referee serve` on a damaged store, as an operator meets it: it starts, or it refuses with
/// what to do and a non-zero exit; never a panic (exit 101, a backtrace), never a refusal
/// that leaves the operator without a next step.
#[test]
fn serve_on_a_truncated_db_refuses_with_what_to_do_and_never_panics() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let root = tempfile::tempdir().expect("tempdir");
    let pristine = root.path().join("pristine");
    generate_by_sessions(&pristine, 270);
    let db_len = std::fs::metadata(pristine.join("db")).expect("db").len();
    let (mut refused, mut served) = (0, 0);
    for percent in (2..=98).step_by(4) {
        let dir = root.path().join(format!("truncated-{percent}"));
        copy_dir(&pristine, &dir);
        truncate(&dir.join("db"), db_len * percent / 100);
        let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(["serve", "--addr", "127.0.0.1:0", "--data"])
            .arg(&dir)
            .env("RUST_BACKTRACE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start referee serve");
        let mut listening = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut listening)
            .expect("read stdout");
        if listening.contains("listening") {
            served += 1;
            child.kill().expect("kill");
            child.wait().expect("wait");
        } else {
            let out = child.wait_with_output().expect("wait");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let code = out.status.code();
            assert!(
                code.is_some_and(|c| c != 0 && c != 101),
                "truncated to {percent}%: exit {code:?}: {stderr}"
            );
            assert!(
                !stderr.contains("panicked at") && !stderr.contains("stack backtrace"),
                "truncated to {percent}%: {stderr}"
            );
            assert!(
                stderr.contains("Restore the data directory from a copy")
                    && stderr.contains("referee store rebuild"),
                "truncated to {percent}%: the refusal must say what to do: {stderr}"
            );
            refused += 1;
            let last = stderr.lines().last().unwrap_or_default();
            say(TRUNCATED_REPORT, &format!("  {percent}%: {last}"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    say(
        TRUNCATED_REPORT,
        &format!("serve on a truncated db (db {db_len} bytes): refused {refused}, served {served}"),
    );
    assert!(
        refused > 0,
        "no truncation was refused: the test damaged nothing"
    );
}
