//! `referee store copy --from SOURCE --to TARGET`: every game of one store into another
//! (sled to PostgreSQL and back), each record exactly as it was acknowledged.
//!
//! Records are restored, not appended anew: an append would give them new receive times, and
//! the receive time is inside each record's hash, so every head hash would change and every
//! audit bundle signed before the move would stop matching its store. Restoring writes the
//! sealed records as they are (after checking they re-seal to their own hashes and chain),
//! a whole game at a time, which also makes an interrupted copy safe to run again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::store::{StoreCopy, fail, locked_copy, on_runtime, read_whole};
use crate::log::{GameInfo, HASH_LEN, Log, PgLog, Record, SledLog};

/// How long to wait for a database to answer before giving up, as `serve --store` does.
const CONNECT_LIMIT: Duration = Duration::from_secs(30);
/// Hex digits of a head hash shown per game: enough to compare by eye with `store check`.
const HEAD_PREFIX: usize = 16;

/// `store copy`: exit 2 for a bad spec, 1 if any game was not copied and verified.
pub fn run(from: &str, to: &str, ca: Option<&Path>) -> ExitCode {
    let specs = Spec::parse("--from", from).and_then(|from| {
        let to = Spec::parse("--to", to)?;
        if from.same_as(&to) {
            return Err("--from and --to name the same store".to_owned());
        }
        Ok((from, to))
    });
    match specs {
        Ok((from, to)) => on_runtime(copy(from, to, ca)),
        Err(e) => fail(2, &e),
    }
}

/// A store as named on the command line.
enum Spec {
    Sled(PathBuf),
    Postgres(String),
}

impl Spec {
    /// `flag` is named in every error, so the operator knows which side is wrong.
    fn parse(flag: &str, text: &str) -> Result<Spec, String> {
        if let Some(dir) = text.strip_prefix("sled:") {
            if dir.is_empty() {
                return Err(format!(
                    "{flag}: sled: needs a directory, e.g. sled:./referee-data"
                ));
            }
            return Ok(Spec::Sled(PathBuf::from(dir)));
        }
        let postgres = text.starts_with("postgres://")
            || text.starts_with("postgresql://")
            || text.contains('=');
        if !postgres {
            return Err(format!(
                "{flag}: {text:?} is not a store: write sled:DIR, or a PostgreSQL connection \
                 string (postgres://..., postgresql://... or key=value ...)"
            ));
        }
        // tokio-postgres does not know verify-full; the log reads it (PgLog::open_secured).
        text.replace("sslmode=verify-full", "sslmode=require")
            .parse::<tokio_postgres::Config>()
            .map_err(|e| format!("{flag}: not a PostgreSQL connection string: {e}"))?;
        Ok(Spec::Postgres(text.to_owned()))
    }

    fn same_as(&self, other: &Spec) -> bool {
        match (self, other) {
            (Spec::Sled(a), Spec::Sled(b)) => {
                a == b || (a.canonicalize().ok()).is_some_and(|a| b.canonicalize().ok() == Some(a))
            }
            (Spec::Postgres(a), Spec::Postgres(b)) => a == b,
            _ => false,
        }
    }

    /// The store's name for the output, without a password.
    fn describe(&self) -> String {
        match self {
            Spec::Sled(dir) => format!("sled:{}", dir.display()),
            Spec::Postgres(url) => url
                .parse::<tokio_postgres::Config>()
                .map_or_else(|_| "postgres".to_owned(), |c| super::serve::describe(&c)),
        }
    }
}

/// An opened store. A sled source is read from a private copy taken under its lock (as
/// `store check` does: opening may rewrite a damaged file's tail, and a running server must
/// not be read from underneath); `log` is declared first so it closes before the copy goes.
enum Store {
    Sled {
        log: SledLog,
        _copy: Option<StoreCopy>,
    },
    Postgres(PgLog),
}

impl Store {
    async fn source(spec: &Spec, ca: Option<&Path>) -> Result<Store, String> {
        match spec {
            Spec::Sled(dir) => {
                let copy = locked_copy(dir).map_err(|e| format!("--from: {e}"))?;
                let log = SledLog::open(copy.path()).map_err(|e| {
                    let why = e.to_string();
                    let why = why.replace(
                        &copy.path().display().to_string(),
                        &dir.display().to_string(),
                    );
                    format!("--from: the store cannot be opened: {why}")
                })?;
                let _copy = Some(copy);
                Ok(Store::Sled { log, _copy })
            }
            Spec::Postgres(url) => open_postgres("--from", spec, url, ca).await,
        }
    }

    /// A sled target is opened in place: sled's lock refuses it while a server uses it.
    async fn target(spec: &Spec, ca: Option<&Path>) -> Result<Store, String> {
        match spec {
            Spec::Sled(dir) => match SledLog::open(dir) {
                Ok(log) => Ok(Store::Sled { log, _copy: None }),
                Err(e) => Err(format!(
                    "--to: cannot open the store in {} (stop its server first): {e}",
                    dir.display()
                )),
            },
            Spec::Postgres(url) => open_postgres("--to", spec, url, ca).await,
        }
    }

    async fn games(&self) -> Result<Vec<GameInfo>, String> {
        let games = match self {
            Store::Sled { log, .. } => log.games().await,
            Store::Postgres(log) => log.games().await,
        };
        games.map_err(|e| format!("cannot list the games: {e}"))
    }

    /// Seqs 0..=last_seq, each chunk verified against the chain as it is read.
    async fn records(&self, game: &str, last_seq: u64) -> Result<Vec<Record>, String> {
        match self {
            Store::Sled { log, .. } => read_whole(log, game, last_seq).await,
            Store::Postgres(log) => read_whole(log, game, last_seq).await,
        }
    }

    async fn head(&self, game: &str) -> Result<Option<GameInfo>, String> {
        let info = match self {
            Store::Sled { log, .. } => log.info(game).await,
            Store::Postgres(log) => log.info(game).await,
        };
        info.map_err(|e| e.to_string())
    }

    /// Writes a whole game as it is, in one atomic write.
    async fn restore(&self, records: Vec<Record>) -> Result<(), String> {
        let restored = match self {
            Store::Sled { log, .. } => log.restore(records).await,
            Store::Postgres(log) => log.restore(records).await,
        };
        match restored {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(rejection)) => Err(format!("the target refused it: {rejection}")),
            Err(e) => Err(format!("writing the target failed: {e}")),
        }
    }
}

async fn open_postgres(
    flag: &str,
    spec: &Spec,
    url: &str,
    ca: Option<&Path>,
) -> Result<Store, String> {
    let name = spec.describe();
    let open = PgLog::open_secured(url, ca, crate::log::PG_CONNECTIONS);
    match tokio::time::timeout(CONNECT_LIMIT, open).await {
        Ok(Ok(log)) => Ok(Store::Postgres(log)),
        Ok(Err(e)) => Err(format!("{flag}: cannot open the log in {name}: {e}")),
        Err(_) => Err(format!(
            "{flag}: no answer from {name} within {} s",
            CONNECT_LIMIT.as_secs()
        )),
    }
}

/// What is to be done with each source game, decided before anything is written.
#[derive(Default)]
struct Plan {
    /// Not in the target: to copy.
    copy: Vec<GameInfo>,
    /// In the target with the same head: copied by an earlier run; verified, not written.
    already: Vec<GameInfo>,
    /// Found damaged when the source was opened: cannot be copied.
    damaged: Vec<GameInfo>,
    /// In the target with another head: the copy is refused.
    clashes: Vec<(GameInfo, GameInfo)>,
}

fn plan(source: Vec<GameInfo>, target: Vec<GameInfo>) -> Plan {
    let mut target: HashMap<String, GameInfo> =
        target.into_iter().map(|g| (g.game.clone(), g)).collect();
    let mut plan = Plan::default();
    for game in source {
        match target.remove(&game.game) {
            _ if game.damage.is_some() => plan.damaged.push(game),
            None => plan.copy.push(game),
            Some(there) if same_head(&there, &game) => plan.already.push(game),
            Some(there) => plan.clashes.push((game, there)),
        }
    }
    plan
}

fn same_head(a: &GameInfo, b: &GameInfo) -> bool {
    a.last_seq == b.last_seq && a.head_hash == b.head_hash
}

async fn copy(from: Spec, to: Spec, ca: Option<&Path>) -> ExitCode {
    let stores = match Store::source(&from, ca).await {
        Ok(source) => Store::target(&to, ca).await.map(|target| (source, target)),
        Err(e) => Err(e),
    };
    let (source, target) = match stores {
        Ok(stores) => stores,
        Err(e) => return fail(1, &e),
    };
    let listed = match (source.games().await, target.games().await) {
        (Ok(s), Ok(t)) => plan(s, t),
        (Err(e), _) => return fail(1, &format!("--from: {e}")),
        (_, Err(e)) => return fail(1, &format!("--to: {e}")),
    };
    if !listed.clashes.is_empty() {
        return refuse(&listed.clashes);
    }
    println!(
        "copying {} games from {} to {}",
        listed.copy.len() + listed.already.len() + listed.damaged.len(),
        from.describe(),
        to.describe()
    );
    let tally = copy_all(&source, &target, &listed).await;
    tally.summary()
}

/// Nothing was written: the target holds games of these ids with other records.
fn refuse(clashes: &[(GameInfo, GameInfo)]) -> ExitCode {
    for (source, target) in clashes {
        println!(
            "REFUSED  {}  the target holds seqs 0..={} head {}; the source seqs 0..={} head {}",
            source.game,
            target.last_seq,
            prefix(&target.head_hash),
            source.last_seq,
            prefix(&source.head_hash)
        );
    }
    fail(
        1,
        &format!(
            "--to already holds {} of the games to copy, with other records: nothing was \
             copied. Copy into a store without them",
            clashes.len()
        ),
    )
}

/// What the copy did, for the summary line.
#[derive(Default)]
struct Tally {
    games: usize,
    copied: usize,
    records: usize,
    already: usize,
    failed: usize,
    took: Duration,
}

async fn copy_all(source: &Store, target: &Store, plan: &Plan) -> Tally {
    let started = Instant::now();
    let mut tally = Tally {
        games: plan.copy.len() + plan.already.len() + plan.damaged.len(),
        ..Tally::default()
    };
    for info in &plan.damaged {
        tally.failed += 1;
        let why = info.damage.as_deref().unwrap_or("damaged");
        println!("DAMAGED  {}  in the source, not copied: {why}", info.game);
    }
    for info in &plan.already {
        match verify_already(source, target, info).await {
            Ok(n) => {
                tally.already += 1;
                println!(
                    "ALREADY  {}  {n} records  head {}",
                    info.game,
                    prefix(&info.head_hash)
                );
            }
            Err(why) => fail_game(&mut tally, info, &why),
        }
    }
    for info in &plan.copy {
        match copy_game(source, target, info).await {
            Ok(n) => {
                tally.copied += 1;
                tally.records += n;
                println!(
                    "COPIED   {}  {n} records  head {}",
                    info.game,
                    prefix(&info.head_hash)
                );
            }
            Err(why) => fail_game(&mut tally, info, &why),
        }
    }
    tally.took = started.elapsed();
    tally
}

fn fail_game(tally: &mut Tally, info: &GameInfo, why: &str) {
    tally.failed += 1;
    println!("FAILED   {}  {why}", info.game);
}

/// Reads the game from the source (verifying its chain), restores it in the target, reads it
/// back from there (verifying again) and compares record by record and head by head.
async fn copy_game(source: &Store, target: &Store, info: &GameInfo) -> Result<usize, String> {
    let records = source
        .records(&info.game, info.last_seq)
        .await
        .map_err(|e| format!("reading the source: {e}"))?;
    target.restore(records.clone()).await?;
    verify_target(target, info, &records).await?;
    Ok(records.len())
}

/// A game an earlier run copied: both sides read whole and compared, nothing written.
async fn verify_already(source: &Store, target: &Store, info: &GameInfo) -> Result<usize, String> {
    let records = source
        .records(&info.game, info.last_seq)
        .await
        .map_err(|e| format!("reading the source: {e}"))?;
    verify_target(target, info, &records).await?;
    Ok(records.len())
}

async fn verify_target(target: &Store, info: &GameInfo, records: &[Record]) -> Result<(), String> {
    let copied = target
        .records(&info.game, info.last_seq)
        .await
        .map_err(|e| format!("reading the copy back: {e}"))?;
    if copied != records {
        return Err("the target's records differ from the source's".into());
    }
    match target.head(&info.game).await? {
        Some(head) if same_head(&head, info) => Ok(()),
        _ => Err("the target's head differs from the source's".into()),
    }
}

impl Tally {
    fn summary(&self) -> ExitCode {
        println!(
            "{} games: {} copied ({} records in {:.1} s), {} already in the target, {} not \
             copied",
            self.games,
            self.copied,
            self.records,
            self.took.as_secs_f64(),
            self.already,
            self.failed
        );
        if self.failed > 0 {
            return ExitCode::FAILURE;
        }
        println!("every game's head hash in the target equals the source's");
        ExitCode::SUCCESS
    }
}

fn prefix(hash: &[u8; HASH_LEN]) -> String {
    let mut hex = hex::encode(hash);
    hex.truncate(HEAD_PREFIX);
    hex
}
