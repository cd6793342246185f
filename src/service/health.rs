//! Health that tells the truth: once the log's writer has stopped (a failed commit, e.g. a
//! full disk), every write is refused until a restart, so the referee is reported
//! NOT_SERVING, and the server's log says why.

use std::convert::Infallible;
use std::time::Duration;

use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use crate::log::Log;

use super::Service;
use super::proto::referee_server::RefereeServer;

/// How often the writer is asked whether it stopped: `Log::stopped` is a lock and a clone,
/// so a probe sees the change within a quarter of a second for next to nothing.
const POLL: Duration = Duration::from_millis(250);

/// Reports `referee.v1.Referee` and the server as a whole ("") NOT_SERVING once `log` has
/// stopped. Never completes: it runs as long as the server, and is dropped with it.
pub async fn follow_writer<L: Log>(log: L, reporter: HealthReporter) -> Infallible {
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Some(why) = log.stopped() {
            tracing::error!(
                reason = %why,
                "the log writer has stopped: every write is refused until a restart; \
                 health now answers NOT_SERVING"
            );
            reporter
                .set_not_serving::<RefereeServer<Service<L>>>()
                .await;
            // Probes that ask about the server as a whole (grpc_health_probe, Kubernetes'
            // default) must see it too: only a restart recovers.
            reporter
                .set_service_status("", ServingStatus::NotServing)
                .await;
            // Only a restart recovers: nothing more to watch.
            return std::future::pending().await;
        }
    }
}
