//! Leases: which instance writes a game, so that a paused or cut-off former writer cannot
//! append behind the back of the instance that took the game over.
//!
//! One row per game in `referee_leases`: the holder's name and an epoch. A claim moves the
//! epoch on by one in a single UPDATE (an insert of epoch 1 the first time): claims racing
//! each other queue on the row and each gets its own epoch. The fence is the row lock: the
//! statement that writes a group of appends (`referee_append_batch`, see `schema`) first locks
//! the lease rows of its leased games (`FOR NO KEY UPDATE`, the lock a claim's UPDATE takes
//! too) and writes only those whose epoch is the one held; the rows stay locked until its
//! COMMIT, so a claim made meanwhile waits for that group and then fences every later append.
//! Nothing expires:
//! an instance that stops keeps its row until another claims the game, which it does the
//! moment a board of that game talks to it. Plain SQL that CockroachDB and YugabyteDB also
//! speak (no advisory locks, which belong to a session and do not survive a failover).

use std::time::{SystemTime, UNIX_EPOCH};

use tokio_postgres::Client;

use super::super::{Error, Lease, Rejection, now_ms};
use super::{chain, failed, to_i64};

/// Claims lost to other claimants in a row before giving up: each loss means another
/// instance claimed in the same instant, so the next read normally wins.
const ATTEMPTS: usize = 8;

/// Takes `game`'s lease for `holder`, ending whoever held it: one UPDATE that moves the
/// epoch on from whatever it is when the row lock is granted (READ COMMITTED re-reads the row
/// after waiting), so claims racing each other each get their own epoch and none is lost;
/// the game's first claim inserts epoch 1.
pub(super) async fn claim(
    client: &Client,
    game: &str,
    holder: &str,
) -> Result<Result<Lease, Rejection>, Error> {
    for _ in 0..ATTEMPTS {
        let now = to_i64(now_ms())?;
        let moved = client
            .query_opt(
                "UPDATE referee_leases SET holder = $2, epoch = epoch + 1, taken_ms = $3 \
                 WHERE game = $1 RETURNING epoch",
                &[&game, &holder, &now],
            )
            .await
            .map_err(|e| failed("claiming a game", e))?;
        let epoch = match moved {
            Some(row) => row.get::<_, i64>(0),
            None => {
                if chain::head(client, game).await?.is_none() {
                    return Ok(Err(Rejection::unknown_game(game)));
                }
                let inserted = client
                    .execute(
                        "INSERT INTO referee_leases (game, holder, epoch, taken_ms) \
                         VALUES ($1, $2, 1, $3) ON CONFLICT (game) DO NOTHING",
                        &[&game, &holder, &now],
                    )
                    .await
                    .map_err(|e| failed("claiming a game", e))?;
                if inserted == 0 {
                    // Another instance made the row first: claim over it.
                    continue;
                }
                1
            }
        };
        let epoch =
            u64::try_from(epoch).map_err(|_| chain::loss(game, 0, "negative lease epoch"))?;
        return Ok(Ok(Lease { epoch }));
    }
    Err(Error::Unavailable(format!(
        "postgres: claiming game {game:?} lost {ATTEMPTS} races in a row to other instances"
    )))
}

/// A name for this instance in the lease rows, for the operator reading them: host, process
/// and start time, so two instances on one host differ.
pub(super) fn holder_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default();
    let host = if host.is_empty() { "?".into() } else { host };
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_nanos();
    format!("{host}:{}:{}:{nanos:09}", std::process::id(), now_ms())
}
