//! Tokens shared by the instances of one PostgreSQL log (issue 33): a token issued or revoked
//! on any instance is accepted or refused by every instance within a second.
//!
//! The token file stays what `referee token` writes and what each server reads (so the
//! tools, file modes and the access-control marker are unchanged); each server exchanges its
//! lines with the database's `referee_shared` table ([`crate::log::PgLog::share`]) every
//! [`SHARE_EVERY`]: lines its file has that the database lacks are given to it, lines the
//! database has that the file lacks are appended to the file, in the order first written (a
//! revocation follows the grant it revokes). Lines are only ever added, as in the file: a
//! revocation anywhere is a revocation everywhere. The first exchange happens before the
//! server takes its first call, so an instance never serves with fewer tokens, or fewer
//! revocations, than the database holds. `referee token off` stays per instance (it refuses
//! while a valid token remains, and the other instances keep theirs).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::log::PgLog;

use super::TokenStore;

/// How often a server exchanges token lines with the database: a revocation reaches every
/// instance within two of these (given by one, taken by the other) and counts there at once.
pub const SHARE_EVERY: Duration = Duration::from_millis(250);

/// The kind of the token file's lines in the shared table.
const TOKENS: &str = "tokens";

/// One server's side of the sharing.
pub struct SharedTokens {
    log: PgLog,
    store: Arc<TokenStore>,
    /// Lines the database is known to hold: not given to it again.
    shared: Mutex<HashSet<String>>,
}

impl SharedTokens {
    pub fn new(log: PgLog, store: Arc<TokenStore>) -> SharedTokens {
        SharedTokens {
            log,
            store,
            shared: Mutex::new(HashSet::new()),
        }
    }

    /// One exchange: (lines given to the database, lines taken from it into the file).
    pub async fn exchange(&self) -> Result<(usize, usize), String> {
        let local = self.store.lines().map_err(|e| e.to_string())?;
        let give: Vec<String> = {
            let shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            local
                .iter()
                .filter(|line| !shared.contains(*line))
                .cloned()
                .collect()
        };
        let all = self
            .log
            .share(TOKENS, &give)
            .await
            .map_err(|e| e.to_string())?;
        let have: HashSet<&String> = local.iter().collect();
        let take: Vec<String> = all
            .iter()
            .filter(|line| !have.contains(line))
            .cloned()
            .collect();
        self.store.take_lines(&take).map_err(|e| e.to_string())?;
        *self.shared.lock().unwrap_or_else(PoisonError::into_inner) = all.into_iter().collect();
        Ok((give.len(), take.len()))
    }

    /// Exchanges every [`SHARE_EVERY`] while the server runs; a failure (the database away)
    /// is logged once until an exchange succeeds again, and the tokens already taken stay.
    pub async fn run(self) {
        let mut failing = false;
        loop {
            tokio::time::sleep(SHARE_EVERY).await;
            match self.exchange().await {
                Ok((given, taken)) => {
                    if failing {
                        tracing::info!("token lines are shared through the database again");
                        failing = false;
                    }
                    if given + taken > 0 {
                        tracing::info!(given, taken, "token lines shared");
                    }
                }
                Err(e) if !failing => {
                    tracing::warn!(
                        error = %e,
                        "cannot share token lines through the database; tokens issued or \
                         revoked on other instances reach this one once it can"
                    );
                    failing = true;
                }
                Err(_) => {}
            }
        }
    }
}
