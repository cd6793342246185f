//! The gRPC side: reports go to the game over one Play stream, one event per message, each
//! waiting for its acknowledgement before the next goes. While the server is away the feed is
//! read on and its reports wait; when the server is back the first report not acknowledged is
//! sent again with the same event id, so an event stored whose acknowledgement was lost is
//! acknowledged again, not stored twice.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::service::proto;
use crate::service::proto::play_response::Outcome;

use super::feed::FeedItem;
use super::{Error, Server};

/// The first pause after the server went away; it doubles up to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(500);
const LONGEST_PAUSE: Duration = Duration::from_secs(10);
/// The pause when the server says the bridge sends too fast (RESOURCE_EXHAUSTED).
const SLOW_DOWN: Duration = Duration::from_secs(1);

/// Reports read and not yet acknowledged, and what the bridge knows of the game's log.
pub struct Outbox {
    game: String,
    pending: VecDeque<super::report::Report>,
    /// The seq the next new event gets, as far as the bridge knows: the last
    /// acknowledgement's seq + 1, or the server's word in a refusal.
    next_seq: u64,
    /// The highest seq acknowledged to this bridge.
    pub acknowledged: u64,
    /// Reports the server refused as events (named on standard error).
    pub refused: usize,
    /// The feed's end, once it came.
    pub ended: Option<Result<(), Error>>,
}

/// How a session with the server ended.
pub enum Session {
    /// The feed ended and every report it gave was acknowledged.
    Done,
    /// The server went away (or never answered): wait and try again.
    Away(String),
    /// The server refused the bridge for good.
    Refused(String),
}

/// What to do after an answer.
enum Next {
    Go,
    Pause(Duration),
    Stop(Session),
}

impl Outbox {
    pub fn new(game: &str, last_seq: u64) -> Outbox {
        Outbox {
            game: game.to_string(),
            pending: VecDeque::new(),
            next_seq: last_seq + 1,
            acknowledged: last_seq,
            refused: 0,
            ended: None,
        }
    }

    pub fn waiting(&self) -> usize {
        self.pending.len()
    }

    /// Takes what the feed gave (`None`: its task is gone, which is an end too).
    pub fn take(&mut self, item: Option<FeedItem>) {
        match item {
            Some(FeedItem::Report(report)) => self.pending.push_back(report),
            Some(FeedItem::End(end)) => self.ended = Some(end),
            None => self.ended = Some(Ok(())),
        }
    }

    /// Reads the feed on for `pause` while the server is away.
    pub async fn read_on(&mut self, feed: &mut mpsc::Receiver<FeedItem>, pause: Duration) {
        let deadline = tokio::time::Instant::now() + pause;
        while self.ended.is_none() {
            tokio::select! {
                item = feed.recv() => self.take(item),
                _ = tokio::time::sleep_until(deadline) => return,
            }
        }
        tokio::time::sleep_until(deadline).await;
    }

    /// One session: a Play stream open until the feed is done, the server goes away or
    /// refuses the bridge.
    pub async fn session(
        &mut self,
        server: &Server,
        feed: &mut mpsc::Receiver<FeedItem>,
        pause: &mut Duration,
    ) -> Session {
        let mut client = match server.connect().await {
            Ok(client) => client,
            Err(reason) => return Session::Away(reason),
        };
        let (requests, outgoing) = mpsc::channel(4);
        let mut replies = match client.play(ReceiverStream::new(outgoing)).await {
            Ok(replies) => replies.into_inner(),
            Err(status) => return stream_failed(&status),
        };
        let mut in_flight = false;
        loop {
            if !in_flight {
                match self.pending.front() {
                    Some(report) => {
                        let request = proto::PlayRequest {
                            game: self.game.clone(),
                            expected_seq: self.next_seq,
                            events: vec![report.new_event()],
                        };
                        if requests.send(request).await.is_err() {
                            return Session::Away("the stream to the server closed".into());
                        }
                        in_flight = true;
                    }
                    None if self.ended.is_some() => return Session::Done,
                    None => {}
                }
            }
            tokio::select! {
                item = feed.recv(), if self.ended.is_none() => self.take(item),
                reply = replies.message() => {
                    let reply = match reply {
                        Ok(Some(reply)) => reply,
                        Ok(None) => return Session::Away("the server ended the stream".into()),
                        Err(status) => return stream_failed(&status),
                    };
                    in_flight = false;
                    match self.answer(reply) {
                        Next::Go => *pause = FIRST_PAUSE,
                        Next::Pause(wait) => self.read_on(feed, wait).await,
                        Next::Stop(session) => return session,
                    }
                }
            }
        }
    }

    /// The server's answer to the first pending report.
    fn answer(&mut self, reply: proto::PlayResponse) -> Next {
        match reply.outcome {
            Some(Outcome::Ack(ack)) => self.acknowledged(&ack),
            Some(Outcome::Refusal(refusal)) => self.refused(refusal),
            None => Next::Stop(Session::Away("an answer with no outcome".into())),
        }
    }

    fn acknowledged(&mut self, ack: &proto::AppendEventsResponse) -> Next {
        let Some(report) = self.pending.pop_front() else {
            return Next::Go;
        };
        let Some(&seq) = ack.seqs.first() else {
            return Next::Stop(Session::Away("an acknowledgement without a seq".into()));
        };
        // A retry's acknowledgement names the seq the event got the first time, which may be
        // older than what others have appended since: only ever move forward.
        self.next_seq = self.next_seq.max(seq + 1);
        self.acknowledged = self.acknowledged.max(seq);
        let again = if ack.duplicate {
            " (already stored)"
        } else {
            ""
        };
        println!("sent #{seq} {}{again}", report.what);
        Next::Go
    }

    fn refused(&mut self, refusal: proto::Refusal) -> Next {
        let message = format!("{}: {}", refusal.code, refusal.message);
        match refusal.code.as_str() {
            // Another writer (an arbiter, a clock) appended since: the game is at last_seq.
            "FAILED_PRECONDITION" => match refusal.last_seq {
                Some(last) if last + 1 != self.next_seq => {
                    self.next_seq = last + 1;
                    Next::Go
                }
                _ => self.skip(&message),
            },
            // The id names another stored event: this place in the feed was delivered before
            // with other words (a re-read file whose device gives no time, so the bridge's
            // own differs). Sending it under a new id would store it twice.
            "ALREADY_EXISTS" => {
                if let Some(report) = self.pending.pop_front() {
                    eprintln!(
                        "{}: already stored with another time or content, not sent again ({message})",
                        report.origin
                    );
                }
                Next::Go
            }
            "RESOURCE_EXHAUSTED" => Next::Pause(SLOW_DOWN),
            // The store is unavailable for now (a database failing over) and the server
            // says when to try again: the same report goes again on this stream then.
            "UNAVAILABLE" if refusal.retry_after_ms.is_some() => {
                let wait = u64::from(refusal.retry_after_ms.unwrap_or_default());
                eprintln!(
                    "the server's store is unavailable for now, sending again in {wait} ms: {message}"
                );
                Next::Pause(Duration::from_millis(wait).clamp(FIRST_PAUSE, LONGEST_PAUSE))
            }
            "UNAVAILABLE" | "INTERNAL" | "UNKNOWN" | "ABORTED" | "DEADLINE_EXCEEDED" => {
                Next::Stop(Session::Away(message))
            }
            "UNAUTHENTICATED" | "PERMISSION_DENIED" | "NOT_FOUND" | "DATA_LOSS" => {
                Next::Stop(Session::Refused(message))
            }
            _ => self.skip(&message),
        }
    }

    /// Drops the first pending report, which the server refused as an event: it would be
    /// refused again however often it were sent.
    fn skip(&mut self, message: &str) -> Next {
        if let Some(report) = self.pending.pop_front() {
            eprintln!(
                "{}: refused by the server, skipped: {message}",
                report.origin
            );
            self.refused += 1;
        }
        Next::Go
    }
}

/// A stream that failed: away for anything a later try may mend.
fn stream_failed(status: &tonic::Status) -> Session {
    use tonic::Code;
    let text = super::remote::status_text(status);
    match status.code() {
        Code::Unauthenticated | Code::PermissionDenied | Code::NotFound | Code::InvalidArgument => {
            Session::Refused(text)
        }
        _ => Session::Away(text),
    }
}

/// The next pause after `pause`: doubled, up to [`LONGEST_PAUSE`].
pub fn longer(pause: Duration) -> Duration {
    (pause * 2).min(LONGEST_PAUSE)
}

pub const START_PAUSE: Duration = FIRST_PAUSE;
