//! A small bounded pool of connections to the database, reconnecting after failures.
//!
//! Our own rather than a pool crate: the log needs only check out, give back, and drop a
//! connection whose state is unknown. A connection goes back to the pool only when the
//! operation that used it finished cleanly ([`Conn::release`]); after any error, timeout or
//! dropped future it is closed, so no later request runs behind a half-finished transaction
//! (tokio-postgres would otherwise queue its ROLLBACK or COMMIT on the same socket).

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_postgres::types::Type;
use tokio_postgres::{Client, Statement};

use super::settings;
use super::tls::StoreTls;
use super::{Error, failed};

/// How long connecting (TCP, start-up, the settings check) may take before it is an error.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The pool: at most `size` connections open or being opened at once.
pub(super) struct Connections {
    url: String,
    tls: StoreTls,
    idle: Mutex<Vec<Pooled>>,
    permits: Arc<Semaphore>,
    /// Why the last attempt to connect failed, until one succeeds.
    down: Mutex<Option<String>>,
    /// The last health probe: when, and what it found.
    probed: Mutex<Option<(Instant, Result<(), String>)>>,
}

/// How long a health probe's answer is reused: a health check polled four times a second
/// costs the database one query a second.
const PROBE_EVERY: Duration = Duration::from_secs(1);

/// How long a probe may take before the database counts as unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// An open connection with the statements prepared on it.
struct Pooled {
    client: Client,
    prepared: Prepared,
}

/// Statements prepared on one connection, by their text: parsed and planned once by the
/// server, then each use is a bind and an execute (see [`Conn::prepared`]).
type Prepared = HashMap<&'static str, Statement>;

/// A checked-out connection; closed on drop unless [`released`](Conn::release).
pub(super) struct Conn {
    client: Option<Client>,
    prepared: Prepared,
    pool: Arc<Connections>,
    clean: bool,
    _permit: OwnedSemaphorePermit,
}

impl Connections {
    pub fn new(url: &str, tls: StoreTls, size: usize) -> Arc<Connections> {
        Arc::new(Connections {
            url: url.to_owned(),
            tls,
            idle: Mutex::new(Vec::new()),
            permits: Arc::new(Semaphore::new(size.max(1))),
            down: Mutex::new(None),
            probed: Mutex::new(None),
        })
    }

    /// Whether the database takes writes now: a connection to a primary (not a standby, as a
    /// demoted node is during a failover). Answered from the last probe if it is recent; with
    /// every connection busy, the pool is working and the last connect decides.
    pub async fn probe(self: &Arc<Self>) -> Result<(), String> {
        if let Some((at, found)) = &*self.probed.lock().unwrap_or_else(PoisonError::into_inner)
            && at.elapsed() < PROBE_EVERY
        {
            return found.clone();
        }
        let found = if self.permits.available_permits() == 0 {
            self.down().map_or(Ok(()), Err)
        } else {
            match tokio::time::timeout(PROBE_TIMEOUT, self.ask_primary()).await {
                Ok(found) => found.map_err(|e| e.to_string()),
                Err(_) => Err(format!(
                    "postgres: no answer to a health probe within {} s",
                    PROBE_TIMEOUT.as_secs()
                )),
            }
        };
        *self.probed.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((Instant::now(), found.clone()));
        found
    }

    async fn ask_primary(self: &Arc<Self>) -> Result<(), Error> {
        let conn = self.get().await?;
        let row = conn
            .query_one("SELECT pg_is_in_recovery()", &[])
            .await
            .map_err(|e| failed("probing the database", e))?;
        let standby: bool = row.get(0);
        conn.release();
        if standby {
            return Err(Error::Unavailable(
                "postgres: connected to a standby (read-only), the primary is changing".into(),
            ));
        }
        Ok(())
    }

    /// A connection: an idle one that is still open, else a new one. Waits while all are busy.
    pub async fn get(self: &Arc<Self>) -> Result<Conn, Error> {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| Error::Closed)?;
        let Pooled { client, prepared } = match self.take_idle() {
            Some(pooled) => pooled,
            None => Pooled {
                client: self.connect().await?,
                prepared: Prepared::new(),
            },
        };
        Ok(Conn {
            client: Some(client),
            prepared,
            pool: Arc::clone(self),
            clean: false,
            _permit: permit,
        })
    }

    fn take_idle(&self) -> Option<Pooled> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        while let Some(pooled) = idle.pop() {
            // The server may have closed it (a restart, a failover) while it sat idle.
            if !pooled.client.is_closed() {
                return Some(pooled);
            }
        }
        None
    }

    /// Opens a connection and checks that its session commits durably.
    pub async fn connect(&self) -> Result<Client, Error> {
        let result = tokio::time::timeout(CONNECT_TIMEOUT, self.open()).await;
        let result = result.unwrap_or_else(|_| {
            Err(Error::Unavailable(format!(
                "postgres: no connection within {} s",
                CONNECT_TIMEOUT.as_secs()
            )))
        });
        let mut down = self.down.lock().unwrap_or_else(PoisonError::into_inner);
        *down = result.as_ref().err().map(ToString::to_string);
        result
    }

    async fn open(&self) -> Result<Client, Error> {
        let (client, connection) = tokio_postgres::connect(&self.url, self.tls.clone())
            .await
            .map_err(|e| failed("connecting", e))?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::warn!(error = %e, "postgres connection ended");
            }
        });
        settings::check_durable(&client).await?;
        settings::plan_generically(&client).await?;
        Ok(client)
    }

    /// Why the database cannot be reached, if the last attempt to connect failed.
    pub fn down(&self) -> Option<String> {
        self.down
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A connection of its own (the listener's), made as the pool's are; its driver is the
    /// caller's to run.
    pub async fn connect_unpooled(
        &self,
    ) -> Result<
        (
            Client,
            tokio_postgres::Connection<
                tokio_postgres::Socket,
                super::tls::Encrypted<tokio_postgres::Socket>,
            >,
        ),
        tokio_postgres::Error,
    > {
        tokio_postgres::connect(&self.url, self.tls.clone()).await
    }
}

impl Conn {
    /// Gives the connection back to the pool: the operation finished and left no transaction.
    pub fn release(mut self) {
        self.clean = true;
    }

    /// `sql` prepared on this connection with parameters of `types`: prepared (one round
    /// trip) the first time the connection runs it, then kept with the connection in the
    /// pool. Executing a prepared statement skips the server's parse and plan, which for the
    /// group append's call was about a third of its time with one board (BENCHMARKS.md,
    /// issue 33). A statement the server can no longer run as prepared (its function
    /// replaced with another result type) fails, and a failed connection is closed with
    /// everything prepared on it.
    pub async fn prepared(
        &mut self,
        sql: &'static str,
        types: &[Type],
    ) -> Result<Statement, tokio_postgres::Error> {
        if let Some(statement) = self.prepared.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.prepare_typed(sql, types).await?;
        self.prepared.insert(sql, statement.clone());
        Ok(statement)
    }
}

impl Deref for Conn {
    type Target = Client;

    fn deref(&self) -> &Client {
        self.client.as_ref().expect("a checked-out connection")
    }
}

impl DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut Client {
        self.client.as_mut().expect("a checked-out connection")
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        if self.clean && !client.is_closed() {
            let mut idle = self
                .pool
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            idle.push(Pooled {
                client,
                prepared: std::mem::take(&mut self.prepared),
            });
        }
        // Otherwise dropping the client closes the connection.
    }
}
