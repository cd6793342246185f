//! A feed opened: its reports come on a channel, then its end, from a task of its own, so
//! that a board is read on while the server is away.

use tokio::io::BufReader;
use tokio::sync::mpsc;

use super::game::GameInfo;
use super::reading::Reading;
use super::report::{BridgeTime, Report};
use super::spec::FeedSpec;
use super::{Error, lines, livechess};

/// Reports waiting between the feed and the server: a board reports a few times a second,
/// and a file waits for the server rather than being read into memory whole.
const WAITING: usize = 256;

/// What a feed gives.
#[derive(Debug)]
pub enum FeedItem {
    Report(Report),
    /// The feed ended: normally (a file read to its end), or went away.
    End(Result<(), Error>),
}

/// What a feed's reader knows: where it reads, the game's sides, and the time to give
/// reports whose device gives none.
#[derive(Clone, Debug)]
pub struct Source {
    pub spec: FeedSpec,
    pub sides: [&'static str; 2],
    pub time: BridgeTime,
}

impl Source {
    /// The feed's end: normal for a file or standard input, the device gone for the others.
    pub fn ended(&self) -> Result<(), Error> {
        if self.spec.ends_normally() {
            Ok(())
        } else {
            self.lost("it closed".into())
        }
    }

    pub fn lost(&self, reason: String) -> Result<(), Error> {
        Err(Error::FeedLost {
            feed: self.spec.to_string(),
            reason,
        })
    }
}

/// Opens the feed (an error if it cannot be: a missing file, a refused connection, no such
/// board) and reads it on a task of its own.
pub async fn start(
    spec: &FeedSpec,
    game: &GameInfo,
    time: BridgeTime,
) -> Result<mpsc::Receiver<FeedItem>, Error> {
    let (out, feed) = mpsc::channel(WAITING);
    let source = Source {
        spec: spec.clone(),
        sides: game.variant.spec().sides,
        time,
    };
    let unavailable = |reason: String| Error::FeedUnavailable {
        feed: spec.to_string(),
        reason,
    };
    let reading = Reading::new(game.variant, &game.start, game.hold_ms);
    match spec {
        FeedSpec::Stdin => {
            let input = BufReader::new(tokio::io::stdin());
            tokio::spawn(lines::read(input, source, reading, out));
        }
        FeedSpec::File(path) | FeedSpec::Serial(path) => {
            let file = tokio::fs::File::open(path)
                .await
                .map_err(|e| unavailable(e.to_string()))?;
            tokio::spawn(lines::read(BufReader::new(file), source, reading, out));
        }
        FeedSpec::Tcp(address) => {
            let stream = tokio::net::TcpStream::connect(address)
                .await
                .map_err(|e| unavailable(e.to_string()))?;
            tokio::spawn(lines::read(BufReader::new(stream), source, reading, out));
        }
        FeedSpec::LiveChess { url, serial } => {
            let board = livechess::open(url, serial.as_deref(), game)
                .await
                .map_err(unavailable)?;
            tokio::spawn(board.read(source, reading, out));
        }
    }
    Ok(feed)
}
