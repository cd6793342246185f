//! Health that tells the truth: NOT_SERVING while the log cannot take writes, SERVING again
//! as soon as it can (a PostgreSQL failover over, the database back), each change written to
//! the server's log once, with its reason. On sled, a writer that stopped after a failed
//! commit (e.g. a full disk) stays NOT_SERVING until a restart, and the log line says so.

use std::convert::Infallible;
use std::time::Duration;

use tonic::server::NamedService;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use crate::log::{Log, Writable};

use super::Service;
use super::proto::referee_server::RefereeServer;

/// How often the log is asked whether it takes writes: sled answers from a lock; PostgreSQL
/// from a probe at most a second old (see `Log::writable`).
const POLL: Duration = Duration::from_millis(250);

/// Reports `referee.v1.Referee` and the server as a whole ("") as the log's writability
/// changes. Never completes: it runs as long as the server, and is dropped with it.
pub async fn follow_writer<L: Log>(log: L, reporter: HealthReporter) -> Infallible {
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The server starts SERVING (the store opened): only a change is reported.
    let mut was = Writable::Yes;
    loop {
        tick.tick().await;
        let now = log.writable().await;
        if same_state(&was, &now) {
            continue;
        }
        report(&now);
        let status = match now {
            Writable::Yes => ServingStatus::Serving,
            Writable::ForNow(_) | Writable::UntilRestart(_) => ServingStatus::NotServing,
        };
        reporter
            .set_service_status(RefereeServer::<Service<L>>::NAME, status)
            .await;
        // Probes that ask about the server as a whole (grpc_health_probe, Kubernetes'
        // default) must see it too.
        reporter.set_service_status("", status).await;
        was = now;
    }
}

/// Whether two answers are the same state for health: a changing reason text (a probe's
/// error worded differently) is not a change worth a log line.
fn same_state(a: &Writable, b: &Writable) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// One log line per change, with the reason and what follows from it.
fn report(now: &Writable) {
    match now {
        Writable::Yes => tracing::warn!("the log takes writes again; health now answers SERVING"),
        Writable::ForNow(why) => tracing::error!(
            reason = %why,
            "the log cannot take writes for now; health answers NOT_SERVING until it can \
             (writes are refused UNAVAILABLE meanwhile and boards resend)"
        ),
        Writable::UntilRestart(why) => tracing::error!(
            reason = %why,
            "the log writer has stopped: every write is refused until a restart; health now \
             answers NOT_SERVING"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_worded_differently_is_not_a_change() {
        let a = Writable::ForNow("connection refused".into());
        let b = Writable::ForNow("no answer within 3 s".into());
        assert!(same_state(&a, &b));
        assert!(!same_state(&a, &Writable::Yes));
        assert!(!same_state(&a, &Writable::UntilRestart("disk".into())));
    }
}
