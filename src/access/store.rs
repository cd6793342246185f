//! Issued tokens, kept hashed in a JSON Lines file in the data directory. The server re-reads
//! the file when it changes, so tokens issued while it runs work at once.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};

use super::{Denied, Grant};

/// The token file's name inside the data directory.
pub const TOKEN_FILE: &str = "tokens.jsonl";

/// The issued tokens of a data directory.
pub struct TokenStore {
    path: PathBuf,
    cache: Mutex<(Option<SystemTime>, Vec<Grant>)>,
}

impl TokenStore {
    pub fn new(data: &Path) -> TokenStore {
        TokenStore {
            path: data.join(TOKEN_FILE),
            cache: Mutex::new((None, Vec::new())),
        }
    }

    /// Issues a token: stores its hash with the grant, returns the secret (shown once).
    pub fn issue(&self, mut grant: Grant) -> Result<String, String> {
        let mut random = [0u8; 24];
        OsRng.fill_bytes(&mut random);
        let secret = format!("rt_{}_{}", grant.id, hex::encode(random));
        grant.hash = hash(&secret);
        if self.grants()?.iter().any(|g| g.id == grant.id) {
            return Err(format!("a token with id \"{}\" exists already", grant.id));
        }
        let line = serde_json::to_string(&grant).map_err(|e| e.to_string())?;
        let mut file =
            open_append(&self.path).map_err(|e| format!("{}: {e}", self.path.display()))?;
        writeln!(file, "{line}")
            .and_then(|()| file.sync_all())
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        Ok(secret)
    }

    /// Every issued token, re-read if the file changed.
    pub fn grants(&self) -> Result<Vec<Grant>, String> {
        let modified = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok();
        let mut cache = self.cache.lock().expect("token cache");
        if cache.0 != modified || modified.is_none() {
            *cache = (modified, read(&self.path)?);
        }
        Ok(cache.1.clone())
    }

    /// Whether access control is on: once any token exists.
    pub fn enforced(&self) -> Result<bool, String> {
        Ok(!self.grants()?.is_empty())
    }

    /// The grant of a bearer token, or why there is none.
    pub fn authenticate(&self, secret: Option<&str>) -> Result<Grant, Denied> {
        let secret = secret.ok_or_else(|| {
            Denied::Unauthenticated(
                "this server requires a token: send \"authorization: Bearer <token>\"".into(),
            )
        })?;
        let wanted = hash(secret);
        let grants = self.grants().map_err(Denied::Unauthenticated)?;
        grants
            .into_iter()
            .find(|g| g.hash == wanted)
            .ok_or_else(|| Denied::Unauthenticated("unknown token".into()))
    }
}

fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)
}

fn read(path: &Path) -> Result<Vec<Grant>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{}: line {}: {e}", path.display(), i + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{Role, SideScope};

    #[test]
    fn issued_tokens_authenticate_and_are_stored_only_hashed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = TokenStore::new(dir.path());
        assert!(!store.enforced().expect("read"));
        let grant = Grant {
            id: "b1".into(),
            hash: String::new(),
            role: Role::Board,
            game: Some("g".into()),
            side: Some(SideScope::Both),
            tournament: None,
            issued_ms: 1,
        };
        let secret = store.issue(grant).expect("issue");
        assert!(store.enforced().expect("read"));
        assert_eq!(store.authenticate(Some(&secret)).expect("known").id, "b1");
        assert!(matches!(
            store.authenticate(Some("rt_b1_00")),
            Err(Denied::Unauthenticated(_))
        ));
        assert!(matches!(
            store.authenticate(None),
            Err(Denied::Unauthenticated(_))
        ));
        let file = std::fs::read_to_string(dir.path().join(TOKEN_FILE)).expect("file");
        assert!(
            !file.contains(&secret),
            "the secret itself must not be stored"
        );
    }
}
