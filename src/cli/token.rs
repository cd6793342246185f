//! `referee token issue|list|off`: bearer tokens for boards, arbiters and auditors, and the
//! deliberate way to turn access control off.

use std::path::Path;
use std::process::ExitCode;

use crate::access::{Grant, Role, SideScope, StoreError, TokenStore, TurnedOff};

/// What `token issue` was asked for.
pub struct Request<'a> {
    pub id: &'a str,
    pub role: &'a str,
    pub game: Option<&'a str>,
    pub side: Option<&'a str>,
    pub tournament: Option<&'a str>,
}

pub fn issue(data: &Path, request: &Request<'_>) -> ExitCode {
    let issued =
        grant(request).and_then(|g| TokenStore::new(data).issue(g).map_err(|e| e.to_string()));
    match issued {
        Ok(secret) => {
            eprintln!(
                "token \"{}\" issued; it is shown once and stored only hashed",
                request.id
            );
            println!("{secret}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::from(2)
        }
    }
}

pub fn list(data: &Path) -> ExitCode {
    match TokenStore::new(data).grants() {
        Ok(grants) => {
            for g in grants {
                let scope = g
                    .game
                    .or(g.tournament.map(|t| format!("tournament {t}*")))
                    .unwrap_or_else(|| "all games".into());
                println!("{}\t{:?}\t{scope}\t{:?}", g.id, g.role, g.side);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Turns access control off; exit 2 while tokens remain (they would stay valid unchecked).
pub fn off(data: &Path) -> ExitCode {
    match TokenStore::new(data).turn_off() {
        Ok(TurnedOff::Now) => {
            eprintln!(
                "access control is off: every call is accepted without a token until a token \
                 is issued again"
            );
            ExitCode::SUCCESS
        }
        Ok(TurnedOff::Already) => {
            eprintln!("access control was off already");
            ExitCode::SUCCESS
        }
        Err(e @ StoreError::TokensRemain { .. }) => {
            eprintln!("referee: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

fn grant(r: &Request<'_>) -> Result<Grant, String> {
    let role = match r.role {
        "board" => Role::Board,
        "arbiter" => Role::Arbiter,
        "auditor" => Role::Auditor,
        other => {
            return Err(format!(
                "unknown role \"{other}\" (expected board, arbiter or auditor)"
            ));
        }
    };
    let side = r
        .side
        .map(|s| match s {
            "white" | "red" | "first" => Ok(SideScope::First),
            "black" | "second" => Ok(SideScope::Second),
            "both" => Ok(SideScope::Both),
            other => Err(format!(
                "unknown side \"{other}\" (expected white, red, black or both)"
            )),
        })
        .transpose()?;
    match (role, r.game, side, r.tournament) {
        (Role::Board, Some(_), Some(_), None)
        | (Role::Arbiter, None, None, Some(_))
        | (Role::Auditor, None, None, None) => {}
        (Role::Board, ..) => {
            return Err("a board token needs --game and --side, and no --tournament".into());
        }
        (Role::Arbiter, ..) => {
            return Err(
                "an arbiter token needs --tournament (a game-id prefix), and no --game or --side"
                    .into(),
            );
        }
        (Role::Auditor, ..) => {
            return Err(
                "an auditor token reads every game: give no --game, --side or --tournament".into(),
            );
        }
    }
    if r.id.is_empty() || !r.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(format!(
            "token id \"{}\" must be letters, digits and '-'",
            r.id
        ));
    }
    let issued_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    Ok(Grant {
        id: r.id.to_string(),
        hash: String::new(),
        role,
        game: r.game.map(String::from),
        side,
        tournament: r.tournament.map(String::from),
        issued_ms,
    })
}
