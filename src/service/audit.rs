//! The audit calls: a game's signed bundle, a tournament's signed export, verification, and
//! the public key — the same texts and reports as `referee audit`.

use std::sync::Arc;

use ed25519_dalek::SigningKey;

use crate::audit::{self, Pairings};
use crate::log::Log;

use super::caller::Caller;
use super::{Error, Service, proto};
use crate::stored::load_log;

impl<L: Log> Service<L> {
    /// The service signing audit exports with `key` (the data directory's, in `serve`).
    pub fn with_audit_key(mut self, key: SigningKey) -> Service<L> {
        self.audit_key = Some(Arc::new(key));
        self
    }

    fn key(&self) -> Result<&SigningKey, Error> {
        self.audit_key.as_deref().ok_or_else(|| {
            Error::Unavailable("this server has no audit signing key configured".into())
        })
    }

    pub(super) fn public_key(&self, caller: &Caller) -> Result<proto::GetAuditKeyResponse, Error> {
        caller.may_audit(None)?;
        Ok(proto::GetAuditKeyResponse {
            public_key: audit::public_key_hex(self.key()?),
        })
    }

    pub(super) async fn audit_bundle(
        &self,
        game: &str,
        caller: &Caller,
    ) -> Result<proto::AuditExport, Error> {
        caller.may_audit(Some(game))?;
        let key = self.key()?;
        // Read once through the service's own path first, so an unknown game is NOT_FOUND and
        // a damaged record DATA_LOSS, with the same messages as every other call.
        load_log(&self.log, game, None).await?;
        let text = audit::export(&self.log, game, key, now_ms()).await?;
        Ok(proto::AuditExport {
            text,
            public_key: audit::public_key_hex(key),
            warnings: Vec::new(),
        })
    }

    pub(super) async fn tournament_export(
        &self,
        request: proto::ExportTournamentRequest,
        caller: &Caller,
    ) -> Result<proto::AuditExport, Error> {
        caller.may_audit(Some(&request.event))?;
        let key = self.key()?;
        let mut pairings = Pairings::default();
        for p in &request.pairings {
            pairings.insert(&p.game, &p.first, &p.second);
        }
        let export =
            audit::export_tournament(&self.log, &request.event, &pairings, key, now_ms()).await?;
        Ok(proto::AuditExport {
            text: export.text,
            public_key: audit::public_key_hex(key),
            warnings: export.warnings,
        })
    }

    pub(super) fn check_bundle(
        &self,
        request: proto::VerifyAuditRequest,
        caller: &Caller,
    ) -> Result<proto::AuditReport, Error> {
        caller.may_audit(None)?;
        let pinned = Some(request.key.as_str()).filter(|k| !k.is_empty());
        let report = audit::verify(&request.text, pinned)?;
        Ok(proto::AuditReport {
            holds: report.ok(),
            held: report.held,
            problems: report.problems,
        })
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
