//! Why the bridge stopped: each a sentence for the operator, naming the feed, the game or the
//! server it is about.

use thiserror::Error;

/// What ends a bridge other than its feed's normal end.
#[derive(Debug, Error)]
pub enum Error {
    /// The `--feed` SPEC is not one of the forms the bridge reads.
    #[error("--feed {spec:?}: {reason}")]
    BadSpec {
        /// The SPEC as given.
        spec: String,
        /// What is wrong with it, and which forms there are.
        reason: String,
    },
    /// The feed could not be opened or reached (a missing file, a refused TCP connection,
    /// LiveChess not running or listing no such board).
    #[error("cannot open the feed {feed}: {reason}")]
    FeedUnavailable {
        /// The feed as the operator named it.
        feed: String,
        /// Why.
        reason: String,
    },
    /// A live feed (TCP, serial device, LiveChess) went away while the bridge read it.
    #[error("the feed {feed} went away: {reason}")]
    FeedLost {
        /// The feed as the operator named it.
        feed: String,
        /// What happened (closed, reset, an error of the device).
        reason: String,
    },
    /// The game cannot be fed: it does not exist, or its board is not one the feed reads.
    #[error("game {game:?}: {reason}")]
    Game {
        /// The game id.
        game: String,
        /// What is wrong.
        reason: String,
    },
    /// The server is away and the bridge was told not to wait for it (`--once`).
    #[error("the server at {server} is away: {reason}")]
    ServerAway {
        /// The server's URL.
        server: String,
        /// The last failure.
        reason: String,
    },
    /// The server refused something no retry can mend (a token without the right, an unknown
    /// game).
    #[error("the server at {server} refused the bridge: {reason}")]
    Refused {
        /// The server's URL.
        server: String,
        /// The refusal, with its gRPC code.
        reason: String,
    },
    /// Reports that the server refused as events; each was named on standard error when it
    /// happened.
    #[error("{count} report(s) refused by the server (see above); the others are stored")]
    ReportsRefused {
        /// How many.
        count: usize,
    },
}

impl Error {
    /// The exit code: 2 for what the operator typed wrong, 1 for what went away or failed.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::BadSpec { .. } | Error::Game { .. } => 2,
            _ => 1,
        }
    }
}
