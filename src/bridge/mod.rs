//! The bridge (`referee board`): reads an electronic board's feed and streams it into a game
//! over gRPC, and says on the terminal what it sent and what the referee derived from it.
//!
//! Feeds ([`spec::FeedSpec`]): the generic JSON-lines protocol of `docs/board-feed.md` from
//! standard input, a file, a TCP server or a serial device ([`lines`]), or DGT LiveChess's
//! local websocket API ([`livechess`]). Not DGT's serial protocol: its header forbids
//! commercial use without DGT's written permission.
//!
//! Each report carries an event id fixed by its place in the feed, so a report sent again
//! (after the server was away, or by a bridge restarted on the same file) is acknowledged
//! again and not stored twice.

mod error;
pub mod feed;
pub mod game;
pub mod layout;
pub mod lines;
pub mod livechess;
pub mod reading;
pub mod report;
pub mod spec;
mod stream;
mod watch;

use std::path::PathBuf;
use std::time::Duration;

pub use error::Error;
pub use spec::FeedSpec;

use crate::cli::remote::{self, Client, Remote};
use game::{GameInfo, Lookup};
use stream::{Outbox, Session};

/// How long, once the feed is done, the bridge waits for the rulings of its last reports.
const LAST_RULINGS: Duration = Duration::from_secs(3);

/// Where the server is and as whom the bridge speaks to it.
#[derive(Clone, Debug)]
pub struct Server {
    /// `http://HOST:PORT` or `https://HOST:PORT`.
    pub url: String,
    pub ca_cert: Option<PathBuf>,
    pub token_file: Option<PathBuf>,
}

impl Server {
    async fn connect(&self) -> Result<Client, String> {
        let remote = Remote {
            url: &self.url,
            ca_cert: self.ca_cert.as_deref(),
            token_file: self.token_file.as_deref(),
        };
        remote::connect(&remote).await
    }
}

/// A bridge's settings.
#[derive(Clone, Debug)]
pub struct Options {
    pub game: String,
    pub server: Server,
    pub feed: FeedSpec,
    /// Give up at once when the server is away, instead of waiting for it.
    pub once: bool,
}

/// Runs the bridge until its feed ends (`Ok` once every report is acknowledged) or something
/// stops it.
pub async fn run(options: &Options) -> Result<(), Error> {
    let mut pause = stream::START_PAUSE;
    let game = loop {
        match contact(options).await {
            Ok(game) => break game,
            Err(Contact::Away(reason)) => away(options, &reason, 0, &mut pause).await?,
            Err(Contact::Stop(error)) => return Err(error),
        }
    };
    eprintln!(
        "bridge: game {} ({}) at seq {}; reading {}",
        game.id,
        game.variant.name(),
        game.last_seq,
        options.feed
    );
    let time = report::BridgeTime::new(game.last_ts_ms.unwrap_or(0));
    let mut feed = feed::start(&options.feed, &game, time).await?;
    let (seen, mut watched) = tokio::sync::watch::channel(game.last_seq);
    let watcher = tokio::spawn(watch::rulings(
        options.server.clone(),
        game.id.clone(),
        game.last_seq + 1,
        seen,
    ));
    let _stop_watching = AbortOnDrop(watcher);
    let mut outbox = Outbox::new(&game.id, game.last_seq);
    pause = stream::START_PAUSE;
    loop {
        match outbox.session(&options.server, &mut feed, &mut pause).await {
            Session::Done => break,
            Session::Refused(reason) => {
                return Err(Error::Refused {
                    server: options.server.url.clone(),
                    reason,
                });
            }
            Session::Away(reason) => {
                if options.once {
                    return Err(server_away(options, reason));
                }
                say_away(&reason, outbox.waiting(), pause);
                outbox.read_on(&mut feed, pause).await;
                pause = stream::longer(pause);
            }
        }
    }
    // The rulings of the last reports come a moment after their acknowledgement.
    let acknowledged = outbox.acknowledged;
    let _ = tokio::time::timeout(LAST_RULINGS, watched.wait_for(|&seq| seq >= acknowledged)).await;
    if outbox.refused > 0 {
        return Err(Error::ReportsRefused {
            count: outbox.refused,
        });
    }
    outbox.ended.unwrap_or(Ok(()))
}

/// Why the first contact failed.
enum Contact {
    Away(String),
    Stop(Error),
}

/// Connects and reads the game.
async fn contact(options: &Options) -> Result<GameInfo, Contact> {
    let mut client = options.server.connect().await.map_err(Contact::Away)?;
    game::fetch(&mut client, &options.game)
        .await
        .map_err(|lookup| match lookup {
            Lookup::Away(status) => match status.code() {
                tonic::Code::Unauthenticated | tonic::Code::PermissionDenied => {
                    Contact::Stop(Error::Refused {
                        server: options.server.url.clone(),
                        reason: remote::status_text(&status),
                    })
                }
                _ => Contact::Away(remote::status_text(&status)),
            },
            Lookup::Game(reason) => Contact::Stop(Error::Game {
                game: options.game.clone(),
                reason,
            }),
        })
}

/// Waits before trying the server again, or gives up with `--once`.
async fn away(
    options: &Options,
    reason: &str,
    waiting: usize,
    pause: &mut Duration,
) -> Result<(), Error> {
    if options.once {
        return Err(server_away(options, reason.to_string()));
    }
    say_away(reason, waiting, *pause);
    tokio::time::sleep(*pause).await;
    *pause = stream::longer(*pause);
    Ok(())
}

fn server_away(options: &Options, reason: String) -> Error {
    Error::ServerAway {
        server: options.server.url.clone(),
        reason,
    }
}

fn say_away(reason: &str, waiting: usize, pause: Duration) {
    eprintln!(
        "server away ({reason}); trying again in {:.1} s, {waiting} report(s) waiting",
        pause.as_secs_f64()
    );
}

/// Ends a task when its owner is done with it.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
