//! `referee store check | adopt | rebuild`: what an operator does about a damaged store, and
//! the report `serve` gives at start-up of what opening the store found.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::access::{MARKER_FILE, TOKEN_FILE};
use crate::audit::{KEY_FILE, verified_records};
use crate::log::{Fdatasync, GameInfo, Log, Record, Rejection, SledLog, Trust};

/// Records read per request when a whole chain is verified.
const CHUNK: u64 = 4096;

/// Logs what opening the store found: every damaged game, and notes for the operator.
pub async fn report(log: &SledLog) {
    let (damaged, notes) = log.recovery();
    for note in notes {
        tracing::warn!("store: {note}");
    }
    for error in &damaged {
        tracing::error!("store: {error}");
    }
    let games = log.games().await.map(|g| g.len()).unwrap_or(0);
    let unverified = log.unverified();
    if !unverified.is_empty() {
        tracing::error!(
            games,
            unverified = unverified.len(),
            "store: the unverified games ({}) are not served (DATA_LOSS): damage to anchor.log \
             left what was acknowledged of them unknown. Stop the server, check them with \
             `referee store check` and against the scoresheets, then accept the store with \
             `referee store adopt`",
            unverified.join(", ")
        );
    }
    if damaged.len() == unverified.len() {
        if damaged.is_empty() {
            tracing::info!(games, "store: every game is at its acknowledged head");
        }
    } else {
        tracing::error!(
            games,
            damaged = damaged.len() - unverified.len(),
            "store: the damaged games are not served (DATA_LOSS); the others are. Restore the \
             data directory from a copy, or rebuild it from audit exports with `referee store \
             rebuild`"
        );
    }
}

/// `store check`: verifies every game of a copy of the store against the anchor and its
/// whole chain, and reports game by game. Never writes to `data`.
pub fn check(data: &Path) -> ExitCode {
    let copy = match locked_copy(data) {
        Ok(copy) => copy,
        Err(e) => return fail(2, &e),
    };
    let outcome = match SledLog::open(copy.path()) {
        Ok(log) => on_runtime(verify_games(&log)),
        Err(e) => {
            let copied = copy.path().display().to_string();
            let why = e.to_string().replace(&copied, &data.display().to_string());
            println!("REFUSED  the store cannot be opened: {why}");
            ExitCode::FAILURE
        }
    };
    drop(copy);
    outcome
}

/// `store adopt`: accepts the store as it is now (after restoring a copy on purpose, or
/// when the anchor itself is damaged), anchors it anew and verifies every chain.
pub fn adopt(data: &Path) -> ExitCode {
    match SledLog::open_as(data, Box::new(Fdatasync), Trust::Adopt) {
        Ok(log) => on_runtime(verify_games(&log)),
        Err(e) => fail(
            1,
            &format!("cannot open the store in {}: {e}", data.display()),
        ),
    }
}

/// Prints each game's state, each whole chain verified; exit 0 only if every game holds.
async fn verify_games(log: &SledLog) -> ExitCode {
    let (_, notes) = log.recovery();
    for note in notes {
        println!("note     {note}");
    }
    let games = match log.games().await {
        Ok(games) => games,
        Err(e) => return fail(1, &format!("cannot list the games: {e}")),
    };
    let unverified = log.unverified();
    let (mut damaged, mut doubted) = (0, 0);
    for info in &games {
        match verify_chain(log, info).await {
            Ok(()) => println!(
                "ok       {}  seqs 0..={}  head {}",
                info.game,
                info.last_seq,
                hex::encode(info.head_hash)
            ),
            Err(why) if unverified.contains(&info.game) => {
                doubted += 1;
                println!("UNVERIFIED {}  {why}", info.game);
            }
            Err(why) => {
                damaged += 1;
                println!("DAMAGED  {}  {why}", info.game);
            }
        }
    }
    let held = games.len() - damaged - doubted;
    let unverified = if doubted > 0 {
        format!(", {doubted} unverified")
    } else {
        String::new()
    };
    println!(
        "{} games: {held} hold, {damaged} damaged{unverified}",
        games.len()
    );
    if damaged + doubted == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

async fn verify_chain(log: &SledLog, info: &GameInfo) -> Result<(), String> {
    if let Some(damage) = &info.damage {
        return Err(damage.clone());
    }
    read_whole(log, &info.game, info.last_seq).await.map(|_| ())
}

/// Every record of a game, read in chunks, each chunk verified against its neighbours.
pub(super) async fn read_whole(
    log: &impl Log,
    game: &str,
    last_seq: u64,
) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    let mut from = 0;
    while from <= last_seq {
        let to = last_seq.min(from + CHUNK - 1);
        match log.read(game, from, Some(to)).await {
            Ok(Ok(chunk)) => records.extend(chunk),
            Ok(Err(rejection)) => return Err(rejection.to_string()),
            Err(e) => return Err(e.to_string()),
        }
        from = to + 1;
    }
    Ok(records)
}

/// What `store rebuild` is told.
pub struct Rebuild<'a> {
    /// The data directory to rebuild into (new, or without the games to restore).
    pub data: &'a Path,
    /// A directory of audit bundles (`referee audit export` / ExportAudit).
    pub bundles: &'a Path,
    /// The damaged store, whose healthy games are carried over and whose acknowledged heads
    /// say what the bundles lack.
    pub from_store: Option<&'a Path>,
    /// The public key (hex) every bundle must be signed with.
    pub key: Option<&'a str>,
}

/// One verified copy of a game's records and where it came from.
struct Copy {
    source: String,
    records: Vec<Record>,
}

/// `store rebuild`: restores every game from the best verified copy — a healthy game of the
/// old store, or the longest audit bundle — with its original seqs, times and hashes, and
/// says for every game what could not be restored.
pub fn rebuild(options: &Rebuild) -> ExitCode {
    // A malformed key would leave every bundle unverified, as if each were forged.
    if let Some(Err(e)) = options.key.map(crate::audit::expected_key) {
        return fail(2, &format!("--{e}"));
    }
    let mut copies: BTreeMap<String, Vec<Copy>> = BTreeMap::new();
    let mut acknowledged: HashMap<String, u64> = HashMap::new();
    if let Err(e) = read_bundles(options, &mut copies) {
        return fail(2, &e);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(1, &format!("cannot start the runtime: {e}")),
    };
    if let Some(old) = options.from_store
        && let Err(e) = runtime.block_on(read_old_store(old, &mut copies, &mut acknowledged))
    {
        return fail(2, &e);
    }
    let log = match SledLog::open(options.data) {
        Ok(log) => log,
        Err(e) => return fail(1, &format!("cannot open {}: {e}", options.data.display())),
    };
    let mut whole = true;
    for (game, copies) in &copies {
        whole &= runtime.block_on(restore_game(&log, game, copies, acknowledged.get(game)));
    }
    for (game, acked) in &acknowledged {
        if !copies.contains_key(game) {
            whole = false;
            println!("LOST      {game}  acknowledged up to seq {acked}; no verified copy");
        }
    }
    if let Some(old) = options.from_store {
        carry_files(old, options.data);
    }
    if whole {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

async fn restore_game(log: &SledLog, game: &str, copies: &[Copy], acked: Option<&u64>) -> bool {
    let Some(best) = copies.iter().max_by_key(|c| c.records.len()) else {
        return false;
    };
    if let Some(clash) = copies
        .iter()
        .find(|c| !is_prefix(&c.records, &best.records))
    {
        println!(
            "CONFLICT  {game}  {} and {} disagree: not restored",
            clash.source, best.source
        );
        return false;
    }
    let last = best.records.last().map_or(0, |r| r.seq);
    match log.restore(best.records.clone()).await {
        Ok(Ok(info)) => {
            println!(
                "restored  {game}  seqs 0..={last} from {}  head {}",
                best.source,
                hex::encode(info.head_hash)
            );
        }
        Ok(Err(Rejection::GameExists { .. })) => {
            println!("kept      {game}  already in the target store");
            return true;
        }
        Ok(Err(rejection)) => {
            println!("REFUSED   {game}  {rejection}");
            return false;
        }
        Err(e) => {
            println!("FAILED    {game}  {e}");
            return false;
        }
    }
    match acked {
        Some(&acked) if acked > last => {
            println!(
                "          {game}  seqs {}..={acked} were acknowledged but are in no verified \
                 copy: re-enter them from the scoresheet",
                last + 1
            );
            false
        }
        _ => true,
    }
}

/// Whether `short`'s last record is the record of the same seq in `long`.
fn is_prefix(short: &[Record], long: &[Record]) -> bool {
    match short.last() {
        None => true,
        Some(last) => long
            .get(usize::try_from(last.seq).unwrap_or(usize::MAX))
            .is_some_and(|r| r.hash == last.hash),
    }
}

fn read_bundles(options: &Rebuild, copies: &mut BTreeMap<String, Vec<Copy>>) -> Result<(), String> {
    let dir = options.bundles;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for file in files {
        let name = file.display().to_string();
        let Ok(text) = std::fs::read_to_string(&file) else {
            println!("skipped   {name}: not a text file");
            continue;
        };
        match verified_records(&text, options.key) {
            Ok(records) => match records.first() {
                Some(header) => copies.entry(header.game.clone()).or_default().push(Copy {
                    source: name,
                    records,
                }),
                None => println!("skipped   {name}: no records"),
            },
            Err(problems) => {
                let shown: Vec<&str> = problems.iter().take(3).map(String::as_str).collect();
                println!("skipped   {name}: does not verify: {}", shown.join("; "));
            }
        }
    }
    Ok(())
}

/// What the old store acknowledged (from its anchor, readable even when sled is not), and
/// its healthy games (from a copy of it), if sled can open it.
async fn read_old_store(
    old: &Path,
    copies: &mut BTreeMap<String, Vec<Copy>>,
    acknowledged: &mut HashMap<String, u64>,
) -> Result<(), String> {
    match crate::log::acknowledged(old) {
        Ok(Some(marks)) => acknowledged.extend(marks),
        Ok(None) => {
            println!("note      the old store has no anchor: what it acknowledged is unknown")
        }
        Err(e) => println!("note      the old store's anchor is unusable: {e}"),
    }
    let copy = locked_copy(old)?;
    let log = match SledLog::open(copy.path()) {
        Ok(log) => log,
        Err(e) => {
            let why = e.to_string().replace(
                &copy.path().display().to_string(),
                &old.display().to_string(),
            );
            println!(
                "note      the old store cannot be opened ({why}); restoring from the bundles only"
            );
            return Ok(());
        }
    };
    let source = format!("the old store {}", old.display());
    for info in log.games().await.map_err(|e| e.to_string())? {
        acknowledged
            .entry(info.game.clone())
            .or_insert(info.last_seq);
        if info.damage.is_some() {
            continue;
        }
        match read_whole(&log, &info.game, info.last_seq).await {
            Ok(records) => copies.entry(info.game).or_default().push(Copy {
                source: source.clone(),
                records,
            }),
            Err(why) => println!("damaged   {}  in the old store: {why}", info.game),
        }
    }
    Ok(())
}

/// Tokens (with the marker that keeps access control on) and the audit signing key belong to the service, not to one store: carried over
/// where the new directory has none, so tokens keep working and bundles keep verifying.
fn carry_files(old: &Path, new: &Path) {
    for name in [TOKEN_FILE, MARKER_FILE, KEY_FILE] {
        let (from, to) = (old.join(name), new.join(name));
        if from.exists() && !to.exists() {
            match std::fs::copy(&from, &to) {
                Ok(_) => println!("copied    {name} from {}", old.display()),
                Err(e) => println!("NOT COPIED {name}: {e}"),
            }
        }
    }
}

/// A private copy of a store, taken while holding sled's lock on it so no server writes
/// during the copy; removed when dropped. sled's recovery may rewrite a damaged file's
/// tail, so commands that only look never open the original.
pub(super) struct StoreCopy(PathBuf);

impl StoreCopy {
    pub(super) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for StoreCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) fn locked_copy(data: &Path) -> Result<StoreCopy, String> {
    let db = data.join("db");
    let file = std::fs::File::open(&db)
        .map_err(|e| format!("no store in {}: {}: {e}", data.display(), db.display()))?;
    // The same words as a server or a command opening the store would give.
    file.try_lock()
        .map_err(|_| crate::log::in_use(data).to_string())?;
    let copy = StoreCopy(std::env::temp_dir().join(format!(
        "referee-store-{}-{}",
        std::process::id(),
        data.file_name().map_or("data".into(), |n| n.to_string_lossy())
    )));
    copy_dir(data, copy.path()).map_err(|e| format!("cannot copy {}: {e}", data.display()))?;
    Ok(copy)
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Runs `work` to its end on a runtime of this thread, as `rebuild` does: the log's reads
/// are async. I/O and timers are on for `store copy`, whose PostgreSQL side needs both.
pub(super) fn on_runtime(work: impl Future<Output = ExitCode>) -> ExitCode {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(work),
        Err(e) => fail(1, &format!("cannot start the runtime: {e}")),
    }
}

pub(super) fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("referee: {message}");
    ExitCode::from(code)
}
