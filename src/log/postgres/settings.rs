//! The server settings an acknowledgement rests on, checked on every new connection (a role or
//! a database can override them, so the session's values are the ones that count).
//!
//! - `fsync = on`: without it PostgreSQL never forces its WAL to disk, and a power cut can take
//!   back any commit.
//! - `synchronous_commit` one of `on`, `remote_write`, `remote_apply`: each waits for the local
//!   WAL flush before COMMIT returns (and, with a synchronous standby, for the standby too).
//!   `off` returns before the flush; `local` is refused as well because it skips the
//!   synchronous standby, so a failover could lose an acknowledged append.
//! - `full_page_writes = on`: without it a crash in the middle of a page write can leave a torn
//!   page that WAL replay cannot repair.

use tokio_postgres::Client;

use super::{Error, failed};

/// Values of `synchronous_commit` under which COMMIT returns only after the WAL is flushed.
const DURABLE_COMMIT: [&str; 3] = ["on", "remote_write", "remote_apply"];

/// Refuses a session whose commits would not survive a crash of the server, saying what to
/// configure.
pub(super) async fn check_durable(client: &Client) -> Result<(), Error> {
    let commit = show(client, "synchronous_commit").await?;
    if !DURABLE_COMMIT.contains(&commit.as_str()) {
        // The one of the three a role, a database or a session can override.
        let also = " (and remove any ALTER ROLE/DATABASE ... SET synchronous_commit for the \
                    referee's role and database)";
        return Err(refused("synchronous_commit", &commit, also));
    }
    for setting in ["fsync", "full_page_writes"] {
        let value = show(client, setting).await?;
        if value != "on" {
            return Err(refused(setting, &value, ""));
        }
    }
    Ok(())
}

async fn show(client: &Client, setting: &str) -> Result<String, Error> {
    // SHOW takes no parameters; `setting` is one of our constants above.
    let rows = client
        .simple_query(&format!("SHOW {setting}"))
        .await
        .map_err(|e| failed("reading the server's settings", e))?;
    rows.iter()
        .find_map(|message| match message {
            tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
            _ => None,
        })
        .ok_or_else(|| Error::Storage(format!("postgres: SHOW {setting} returned nothing")))
}

/// Makes the session plan its statements once: `plan_cache_mode = force_generic_plan`.
///
/// PostgreSQL otherwise plans the statements inside `referee_append_batch` again at every
/// call (a "custom" plan for the call's arrays, which the planner keeps preferring), and the
/// planning cost more than the statements themselves: with one board, a call took 0.90-1.06
/// ms under pgbench and 0.62-0.70 ms with generic plans (BENCHMARKS.md, issue 33). The plans
/// do not depend on the values: every statement the log runs finds its rows by primary key
/// or unique index, whatever the game or seq.
pub(super) async fn plan_generically(client: &Client) -> Result<(), Error> {
    client
        .batch_execute("SET plan_cache_mode = force_generic_plan")
        .await
        .map_err(|e| failed("setting plan_cache_mode for the session", e))
}

fn refused(setting: &str, value: &str, also: &str) -> Error {
    Error::Storage(format!(
        "postgres: {setting} is {value:?}, so an acknowledged append could be lost in a crash; \
         set {setting} = on in postgresql.conf{also} and reload the server"
    ))
}
