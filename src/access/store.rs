//! Issued tokens, kept hashed in a JSON Lines file in the data directory. The file is only
//! appended to: a grant line per issued token, a revocation line (`{"revoked":ID,...}`) per
//! revoked one. The server re-reads the file when it changes, so tokens issued or revoked
//! while it runs take effect without a restart: within [`SERVER_RECHECK`] (one second), since a
//! server looks at the files' stamps at most that often rather than on every call. Once a
//! token has been issued, the access-control marker
//! keeps access control on: an emptied or deleted token file then refuses every call instead
//! of accepting every call.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rand_core::{OsRng, RngCore};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::marker::{Marker, sync_dir};
use super::owner::{self, Owner};
use super::stamp::Stamp;
use super::{Denied, Grant, StoreError};

/// The token file's name inside the data directory.
pub const TOKEN_FILE: &str = "tokens.jsonl";

/// How often a server looks whether the token files changed (a `stat` or two): a token
/// issued or revoked by `referee token` takes effect within this time, and a busy server pays
/// no system call per request (issue 17: one `stat` per call before).
pub const SERVER_RECHECK: Duration = Duration::from_secs(1);

const NO_TOKEN: &str = "access control is on but tokens.jsonl holds no token: issue one with \
    `referee token issue`, or turn access control off deliberately with `referee token off`";

/// Whether calls need a token, and which tokens are valid.
#[derive(Clone, Debug)]
pub enum Access {
    /// No token has been issued (or access control was turned off): every call is accepted.
    Off,
    /// Every call needs one of these tokens; with none, every call is refused.
    On(Arc<[Grant]>),
}

impl Access {
    /// The grant of a bearer token; None when access control is off.
    pub fn authenticate(&self, secret: Option<&str>) -> Result<Option<Grant>, Denied> {
        self.authenticate_at(secret, now_ms())
    }

    /// The grant of a bearer token valid at `now_ms` (not revoked, not expired).
    pub fn authenticate_at(
        &self,
        secret: Option<&str>,
        now_ms: u64,
    ) -> Result<Option<Grant>, Denied> {
        let Access::On(grants) = self else {
            return Ok(None);
        };
        if grants.is_empty() {
            return Err(Denied::Unauthenticated(NO_TOKEN.into()));
        }
        let secret = secret.ok_or_else(|| {
            Denied::Unauthenticated(
                "this server requires a token: send \"authorization: Bearer <token>\"".into(),
            )
        })?;
        let wanted = hash(secret);
        let grant = grants
            .iter()
            .find(|g| g.hash == wanted)
            .ok_or_else(|| Denied::Unauthenticated("unknown token".into()))?;
        grant.valid_at(now_ms)?;
        Ok(Some(grant.clone()))
    }
}

/// What `issue` did.
#[derive(Debug)]
pub struct Issued {
    /// The token itself, shown once.
    pub secret: String,
    /// The user the token files were given to: the data directory's owner, when the command
    /// ran as root and the files were root's.
    pub given_to: Option<String>,
}

/// What `revoke` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revoked {
    /// The token was valid (or expired) and is now revoked.
    Now,
    /// The token had been revoked already, at this moment (ms since 1970).
    Already(u64),
}

/// A revocation line of the token file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Revocation {
    /// The id of the revoked token.
    revoked: String,
    revoked_ms: u64,
}

/// What `turn_off` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnedOff {
    /// Access control was on and is now off.
    Now,
    /// Access control was off already.
    Already,
}

/// The issued tokens of a data directory.
pub struct TokenStore {
    dir: PathBuf,
    path: PathBuf,
    marker: Marker,
    cache: Mutex<Option<Snapshot>>,
    /// A snapshot younger than this is used without looking at the files.
    recheck: Duration,
}

/// What the store read last, and the stamps that tell whether it is still current.
struct Snapshot {
    /// The token file's stamp when read; None: there was no token file.
    file: Option<Stamp>,
    /// The directory's stamp, kept while there is no token file: creating the file and
    /// removing the marker both change it, so one stat answers for both.
    dir: Option<Stamp>,
    /// Whether the stamps had settled when read, so that an equal stamp proves no change.
    settled: bool,
    grants: Arc<[Grant]>,
    marked: bool,
    /// When the files were last looked at for this snapshot (read, or found unchanged).
    checked: Instant,
}

impl Snapshot {
    fn access(&self) -> Access {
        if self.marked {
            Access::On(Arc::clone(&self.grants))
        } else {
            Access::Off
        }
    }
}

impl TokenStore {
    pub fn new(data: &Path) -> TokenStore {
        TokenStore {
            dir: data.to_path_buf(),
            path: data.join(TOKEN_FILE),
            marker: Marker::new(data),
            cache: Mutex::new(None),
            recheck: Duration::ZERO,
        }
    }

    /// The store as a server reads it: the files' stamps looked at no more often than
    /// `every` (the tools' default is every call). Changes made through this store itself
    /// (`issue`, `revoke`, `turn_off`) count at once.
    pub fn rechecked_every(mut self, every: Duration) -> TokenStore {
        self.recheck = every;
        self
    }

    /// Issues a token: stores its hash with the grant, returns the secret (shown once). Run
    /// as root, the files written are given to the data directory's owner, who runs the
    /// server; run as another user than that owner, it is refused before writing anything.
    pub fn issue(&self, mut grant: Grant) -> Result<Issued, StoreError> {
        let owner = self.owner()?;
        let created = owner::missing(&self.dir);
        let mut random = [0u8; 24];
        OsRng.fill_bytes(&mut random);
        let secret = format!("rt_{}_{}", grant.id, hex::encode(random));
        grant.hash = hash(&secret);
        if self.load()?.grants.iter().any(|g| g.id == grant.id) {
            return Err(StoreError::IdTaken(grant.id));
        }
        // The marker first: if the token line is then lost, calls are refused, not accepted.
        self.marker
            .write()
            .map_err(|e| io_error(self.marker.path(), e))?;
        let line = serde_json::to_string(&grant).expect("a grant is plain data");
        self.append(&line).map_err(|e| io_error(&self.path, e))?;
        let given = self.give(owner, &created)?;
        Ok(Issued {
            secret,
            given_to: given.then(|| owner.name()),
        })
    }

    /// Revokes the token `id` by appending a revocation line; a running server refuses it
    /// from its next look at the file on (within [`SERVER_RECHECK`]).
    pub fn revoke(&self, id: &str) -> Result<Revoked, StoreError> {
        let owner = self.owner()?;
        let grants = read(&self.path)?;
        let mut of_id = grants.iter().filter(|g| g.id == id).peekable();
        if of_id.peek().is_none() {
            return Err(StoreError::UnknownId(id.into()));
        }
        // Revoked already only if every grant of the id is (see `read`).
        if let Some(at) = of_id.map(|g| g.revoked_ms).collect::<Option<Vec<_>>>() {
            return Ok(Revoked::Already(at.into_iter().min().unwrap_or_default()));
        }
        let line = Revocation {
            revoked: id.into(),
            revoked_ms: now_ms(),
        };
        let line = serde_json::to_string(&line).expect("a revocation is plain data");
        self.append(&line).map_err(|e| io_error(&self.path, e))?;
        self.give(owner, &[])?;
        Ok(Revoked::Now)
    }

    /// The token file's lines as written (grants and revocations), blank ones left out.
    pub fn lines(&self) -> Result<Vec<String>, StoreError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned)
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io_error(&self.path, e)),
        }
    }

    /// Appends lines another instance wrote (grants and revocations, in their order), so
    /// that this instance accepts and refuses the same tokens; each is checked to be one
    /// first, and access control is marked on with the first grant. Counts at once here.
    pub fn take_lines(&self, lines: &[String]) -> Result<(), StoreError> {
        if lines.is_empty() {
            return Ok(());
        }
        for (i, line) in lines.iter().enumerate() {
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|e| StoreError::Unreadable {
                    path: PathBuf::from("(shared token lines)"),
                    line: i + 1,
                    message: e.to_string(),
                })?;
            let checked = if value.get("revoked").is_some() {
                serde_json::from_value::<Revocation>(value).map(drop)
            } else {
                serde_json::from_value::<Grant>(value).map(drop)
            };
            checked.map_err(|e| StoreError::Unreadable {
                path: PathBuf::from("(shared token lines)"),
                line: i + 1,
                message: e.to_string(),
            })?;
        }
        let owner = self.owner()?;
        let created = owner::missing(&self.dir);
        self.marker
            .write()
            .map_err(|e| io_error(self.marker.path(), e))?;
        self.append(&lines.join("\n"))
            .map_err(|e| io_error(&self.path, e))?;
        self.give(owner, &created)?;
        Ok(())
    }

    /// Every issued token, revoked and expired ones included.
    pub fn grants(&self) -> Result<Vec<Grant>, StoreError> {
        Ok(self.load()?.grants.to_vec())
    }

    /// Whether access control is on: once a token has been issued, until `turn_off`.
    pub fn enforced(&self) -> Result<bool, StoreError> {
        Ok(matches!(self.access()?, Access::On(_)))
    }

    /// Whether calls need a token and which are valid, re-read only if the files changed.
    pub fn access(&self) -> Result<Access, StoreError> {
        self.access_at(Instant::now())
    }

    /// [`access`](Self::access) as at `now`: the snapshot as it is while younger than the
    /// recheck interval, else looked at again.
    fn access_at(&self, now: Instant) -> Result<Access, StoreError> {
        let mut cache = self.cache.lock().expect("token cache");
        if let Some(snapshot) = cache.as_mut() {
            if now.saturating_duration_since(snapshot.checked) < self.recheck {
                return Ok(snapshot.access());
            }
            if let Some(access) = self.unchanged(snapshot) {
                snapshot.checked = now;
                return Ok(access);
            }
        }
        let mut snapshot = self.load()?;
        snapshot.checked = now;
        let access = snapshot.access();
        *cache = Some(snapshot);
        Ok(access)
    }

    /// Turns access control off, deliberately; refused while the token file holds a valid
    /// token (neither revoked nor expired), as it could not be revoked any more.
    pub fn turn_off(&self) -> Result<TurnedOff, StoreError> {
        let now = now_ms();
        let valid: Vec<String> = read(&self.path)?
            .into_iter()
            .filter(|g| g.valid_at(now).is_ok())
            .map(|g| g.id)
            .collect();
        if !valid.is_empty() {
            return Err(StoreError::TokensRemain {
                path: self.path.clone(),
                ids: valid,
            });
        }
        let removed = self.marker.remove();
        self.forget();
        match removed {
            Ok(true) => Ok(TurnedOff::Now),
            Ok(false) => Ok(TurnedOff::Already),
            Err(e) => Err(io_error(self.marker.path(), e)),
        }
    }

    /// The snapshot's verdict if nothing it rests on has changed. Costs one stat while the
    /// token file is missing or holds tokens, two while it is empty, and never an open: the
    /// server asks on every call (issue 17 counted 36,724 failed opens in 10 s when the store
    /// re-read a missing file on each one).
    fn unchanged(&self, s: &Snapshot) -> Option<Access> {
        if !s.settled {
            return None;
        }
        let same = match s.file {
            None => Stamp::of(&self.dir).ok()? == s.dir,
            Some(_) if Stamp::of(&self.path).ok()? != s.file => false,
            Some(_) if s.grants.is_empty() => self.marker.exists().ok()? == s.marked,
            Some(_) => true,
        };
        same.then(|| s.access())
    }

    /// Reads the token file and the marker, marking a file that holds tokens.
    fn load(&self) -> Result<Snapshot, StoreError> {
        let now = SystemTime::now();
        // Stamps before contents: a change made after them shows as a new stamp next time.
        let dir = Stamp::of(&self.dir).map_err(|e| io_error(&self.dir, e))?;
        let file = Stamp::of(&self.path).map_err(|e| io_error(&self.path, e))?;
        // No open while stat says there is no file: if one appears after the stat, the
        // directory's stamp has changed by the next look.
        let grants: Arc<[Grant]> = match file {
            Some(_) => read(&self.path)?.into(),
            None => Arc::new([]),
        };
        let mut marked = self
            .marker
            .exists()
            .map_err(|e| io_error(self.marker.path(), e))?;
        if !grants.is_empty() && !marked {
            // Tokens issued before the marker existed: record now that access control is on,
            // so that emptying this file later refuses calls rather than accepting them.
            self.marker
                .write()
                .map_err(|e| io_error(self.marker.path(), e))?;
            marked = true;
        }
        let dir = if file.is_none() { dir } else { None };
        Ok(Snapshot {
            file,
            dir,
            settled: [dir, file].iter().flatten().all(|s| s.settled(now)),
            grants,
            marked,
            checked: Instant::now(),
        })
    }

    /// Who the token files must belong to: the data directory's owner (or its nearest
    /// existing ancestor's). Refused if this process is neither that user nor root.
    fn owner(&self) -> Result<Owner, StoreError> {
        let owner = Owner::of_nearest(&self.dir).map_err(|e| io_error(&self.dir, e))?;
        match Owner::me() {
            Some(me) if !me.is_root() && me.uid != owner.uid => Err(StoreError::NotOwner {
                dir: self.dir.clone(),
                owner: owner.name(),
                me: me.name(),
            }),
            _ => Ok(owner),
        }
    }

    /// Gives the directories `created` and the token files to `owner` where another user
    /// (root) owns them; true if anything was given.
    fn give(&self, owner: Owner, created: &[PathBuf]) -> Result<bool, StoreError> {
        let mut given = false;
        let files = [self.path.as_path(), self.marker.path()];
        for path in created.iter().map(PathBuf::as_path).chain(files) {
            if Owner::of(path).is_some() {
                given |= owner.give(path).map_err(|e| io_error(path, e))?;
            }
        }
        Ok(given)
    }

    /// Drops the snapshot, so that the next call reads the files: after a change made here.
    fn forget(&self) {
        *self.cache.lock().expect("token cache") = None;
    }

    /// Appends a line and makes it durable, with the directory entry of a new file.
    fn append(&self, line: &str) -> std::io::Result<()> {
        let written = open_append(&self.path).and_then(|mut file| {
            writeln!(file, "{line}")?;
            file.sync_all()?;
            sync_dir(&self.dir)
        });
        self.forget();
        written
    }
}

fn io_error(path: &Path, source: std::io::Error) -> StoreError {
    let owner = Owner::of(path).or_else(|| path.parent().and_then(Owner::of));
    match owner {
        Some(owner) if source.kind() == std::io::ErrorKind::PermissionDenied => {
            StoreError::Permission {
                path: path.to_path_buf(),
                owner: owner.name(),
                source,
            }
        }
        _ => StoreError::Io {
            path: path.to_path_buf(),
            source,
        },
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
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

/// The grants of the token file, each marked with its first revocation. A revocation of an
/// id that no line above it issues (its grant line deleted by hand) revokes nothing.
fn read(path: &Path) -> Result<Vec<Grant>, StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(path, e)),
    };
    let mut grants: Vec<Grant> = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let unreadable = |e: serde_json::Error| StoreError::Unreadable {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        };
        let value: serde_json::Value = serde_json::from_str(l).map_err(unreadable)?;
        if value.get("revoked").is_none() {
            grants.push(serde_json::from_value(value).map_err(unreadable)?);
            continue;
        }
        let r: Revocation = serde_json::from_value(value).map_err(unreadable)?;
        // Every grant of that id: two instances of one database may each have issued one
        // before they shared their lines, and a revocation must leave neither valid.
        for g in grants.iter_mut().filter(|g| g.id == r.revoked) {
            g.revoked_ms.get_or_insert(r.revoked_ms);
        }
    }
    Ok(grants)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::access::{MARKER_FILE, Role, SideScope};

    fn board(id: &str) -> Grant {
        Grant {
            id: id.into(),
            hash: String::new(),
            role: Role::Board,
            game: Some("g".into()),
            side: Some(SideScope::Both),
            tournament: None,
            issued_ms: 1,
            expires_ms: None,
            revoked_ms: None,
        }
    }

    fn refusal(access: &Access, secret: Option<&str>) -> String {
        match access.authenticate(secret) {
            Err(Denied::Unauthenticated(m)) => m,
            other => panic!("expected unauthenticated, got {other:?}"),
        }
    }

    #[test]
    fn lines_taken_from_another_instance_count_at_once_and_garbage_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let elsewhere = tempfile::tempdir().expect("tempdir");
        let other = TokenStore::new(elsewhere.path());
        let issued = other.issue(board("b1")).expect("issue");
        other.revoke("b1").expect("revoke");
        let lines = other.lines().expect("lines");
        assert_eq!(lines.len(), 2, "a grant and its revocation: {lines:?}");

        let store = TokenStore::new(dir.path()).rechecked_every(Duration::from_secs(3600));
        assert!(matches!(store.access().expect("access"), Access::Off));
        let refused = store.take_lines(&["{\"not\":\"a grant\"}".to_owned()]);
        assert!(refused.is_err(), "{refused:?}");
        assert!(store.lines().expect("lines").is_empty(), "nothing written");
        store.take_lines(&lines[..1]).expect("the grant");
        // Counted at once, though the store would not look at its file for an hour.
        let access = store.access().expect("access");
        assert!(access.authenticate(Some(&issued.secret)).is_ok());
        store.take_lines(&lines[1..]).expect("the revocation");
        let access = store.access().expect("access");
        assert!(access.authenticate(Some(&issued.secret)).is_err());
        assert_eq!(
            store.lines().expect("lines"),
            lines,
            "the same lines, in order"
        );
    }

    #[test]
    fn a_revocation_revokes_every_grant_of_its_id() {
        // Two instances issued "dup" before they shared their lines.
        let (one, two) = (
            tempfile::tempdir().expect("tmp"),
            tempfile::tempdir().expect("tmp"),
        );
        let (one, two) = (TokenStore::new(one.path()), TokenStore::new(two.path()));
        let first = one.issue(board("dup")).expect("issue");
        let second = two.issue(board("dup")).expect("issue");
        one.take_lines(&two.lines().expect("lines")).expect("take");
        let access = one.access().expect("access");
        assert!(access.authenticate(Some(&first.secret)).is_ok());
        assert!(access.authenticate(Some(&second.secret)).is_ok());
        assert!(matches!(one.revoke("dup").expect("revoke"), Revoked::Now));
        let access = one.access().expect("access");
        assert!(access.authenticate(Some(&first.secret)).is_err());
        assert!(access.authenticate(Some(&second.secret)).is_err());
        assert!(matches!(
            one.revoke("dup").expect("again"),
            Revoked::Already(_)
        ));
    }

    /// Moves a file's modification time an hour back, so that its stamp counts as settled.
    fn age(path: &Path) {
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::open(path)
            .and_then(|f| f.set_modified(hour_ago))
            .expect("set mtime");
    }

    #[test]
    fn issued_tokens_authenticate_and_are_stored_only_hashed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = TokenStore::new(dir.path());
        assert!(!store.enforced().expect("read"));
        let secret = store.issue(board("b1")).expect("issue").secret;
        let access = store.access().expect("read");
        assert!(store.enforced().expect("read"));
        let grant = access.authenticate(Some(&secret)).expect("known");
        assert_eq!(grant.expect("a grant").id, "b1");
        assert_eq!(refusal(&access, Some("rt_b1_00")), "unknown token");
        assert!(refusal(&access, None).contains("requires a token"));
        let file = std::fs::read_to_string(dir.path().join(TOKEN_FILE)).expect("file");
        assert!(
            !file.contains(&secret),
            "the secret itself must not be stored"
        );
    }

    #[test]
    fn an_emptied_or_deleted_token_file_refuses_every_call_until_turned_off() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (tokens, marker) = (dir.path().join(TOKEN_FILE), dir.path().join(MARKER_FILE));
        let store = TokenStore::new(dir.path());
        let secret = store.issue(board("b1")).expect("issue").secret;
        let mode = std::fs::metadata(&marker)
            .expect("marker")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);

        std::fs::write(&tokens, "").expect("empty");
        let emptied = store.access().expect("read");
        assert!(refusal(&emptied, Some(&secret)).contains("holds no token"));
        assert!(refusal(&emptied, None).contains("`referee token off`"));
        std::fs::remove_file(&tokens).expect("delete");
        let deleted = store.access().expect("read");
        assert!(refusal(&deleted, Some(&secret)).contains("holds no token"));

        store.issue(board("b2")).expect("issue");
        assert!(matches!(
            store.turn_off(),
            Err(StoreError::TokensRemain { ids, .. }) if ids == ["b2"]
        ));
        assert!(
            marker.exists(),
            "a refused turn_off leaves access control on"
        );
        std::fs::write(&tokens, "\n").expect("empty");
        assert_eq!(store.turn_off().expect("off"), TurnedOff::Now);
        assert_eq!(store.access().expect("read").authenticate(None), Ok(None));
        assert_eq!(store.turn_off().expect("off"), TurnedOff::Already);
    }

    #[test]
    fn tokens_issued_before_the_marker_existed_are_marked_when_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let line = serde_json::to_string(&board("old")).expect("json");
        std::fs::write(dir.path().join(TOKEN_FILE), format!("{line}\n")).expect("write");
        let store = TokenStore::new(dir.path());
        assert!(store.enforced().expect("read"));
        assert!(dir.path().join(MARKER_FILE).exists());
        std::fs::write(dir.path().join(TOKEN_FILE), "").expect("empty");
        assert!(refusal(&store.access().expect("read"), None).contains("holds no token"));
    }

    #[test]
    fn an_unreadable_token_file_fails_closed() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(TOKEN_FILE), "{not json\n").expect("write");
        let store = TokenStore::new(dir.path());
        assert!(matches!(
            store.access(),
            Err(StoreError::Unreadable { line: 1, .. })
        ));
        assert!(matches!(
            store.turn_off(),
            Err(StoreError::Unreadable { .. })
        ));
    }

    #[test]
    fn settled_stamps_still_see_every_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tokens = dir.path().join(TOKEN_FILE);
        let server = TokenStore::new(dir.path());
        age(dir.path());
        assert!(!server.enforced().expect("read"), "no token file yet");
        // Another process (the CLI) issues a token: the directory's stamp changes.
        let secret = TokenStore::new(dir.path())
            .issue(board("b1"))
            .expect("issue")
            .secret;
        let access = server.access().expect("read");
        assert!(access.authenticate(Some(&secret)).expect("known").is_some());
        // Emptied within the same timestamp tick: the length tells.
        age(&tokens);
        server.access().expect("read");
        let aged = std::fs::metadata(&tokens).and_then(|m| m.modified());
        std::fs::write(&tokens, "").expect("empty");
        std::fs::File::open(&tokens)
            .and_then(|f| f.set_modified(aged?))
            .expect("set mtime");
        let access = server.access().expect("read");
        assert!(refusal(&access, Some(&secret)).contains("holds no token"));
        // Turned off while the server holds an empty file's snapshot: the marker is checked.
        age(&tokens);
        server.access().expect("read");
        TokenStore::new(dir.path()).turn_off().expect("off");
        assert!(!server.enforced().expect("read"));
    }

    #[test]
    fn a_server_looks_at_the_files_at_most_once_per_recheck_interval() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cli = TokenStore::new(dir.path());
        let b1 = cli.issue(board("b1")).expect("issue").secret;
        age(&dir.path().join(TOKEN_FILE));
        let server = TokenStore::new(dir.path()).rechecked_every(SERVER_RECHECK);
        let valid = |access: Access| access.authenticate(Some(&b1)).is_ok();
        let t0 = Instant::now();
        assert!(valid(server.access_at(t0).expect("read")));

        // Revoked by another process: not seen until the interval has passed, since the
        // server does not look at the files before then...
        cli.revoke("b1").expect("revoke");
        let soon = t0 + SERVER_RECHECK / 2;
        assert!(valid(server.access_at(soon).expect("cached")));
        // ...not even when they are gone (a look would see the token file missing).
        let moved = dir.path().join("moved");
        std::fs::rename(dir.path().join(TOKEN_FILE), &moved).expect("move");
        assert!(valid(server.access_at(soon).expect("cached")));
        std::fs::rename(&moved, dir.path().join(TOKEN_FILE)).expect("back");
        // Once it has passed, the change is read.
        let later = t0 + SERVER_RECHECK;
        assert!(!valid(server.access_at(later).expect("read")));

        // A change made through the server's own store counts at once.
        let b2 = server.issue(board("b2")).expect("issue").secret;
        let access = server.access_at(later).expect("read");
        assert!(access.authenticate(Some(&b2)).is_ok());
        server.revoke("b2").expect("revoke");
        let access = server.access_at(later).expect("read");
        assert!(refusal(&access, Some(&b2)).contains("was revoked"));
    }

    #[test]
    fn a_revoked_token_is_refused_and_the_file_only_grows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(TOKEN_FILE);
        let store = TokenStore::new(dir.path());
        let b1 = store.issue(board("b1")).expect("issue").secret;
        let b2 = store.issue(board("b2")).expect("issue").secret;
        let before = std::fs::read_to_string(&path).expect("file");
        let server = TokenStore::new(dir.path());
        assert!(
            server
                .access()
                .expect("read")
                .authenticate(Some(&b1))
                .is_ok()
        );

        assert_eq!(store.revoke("b1").expect("revoke"), Revoked::Now);
        let after = std::fs::read_to_string(&path).expect("file");
        assert!(after.starts_with(&before), "append-only");
        assert_eq!(after.lines().count(), 3);
        let access = server.access().expect("read");
        let refused = refusal(&access, Some(&b1));
        assert!(
            refused.starts_with("token \"b1\" was revoked on 20"),
            "{refused}"
        );
        assert!(access.authenticate(Some(&b2)).expect("valid").is_some());

        let Revoked::Already(at) = store.revoke("b1").expect("again") else {
            panic!("revoked twice")
        };
        assert!(refused.ends_with(&crate::access::expiry::render(at)));
        assert_eq!(std::fs::read_to_string(&path).expect("file"), after);
        assert!(matches!(store.revoke("b9"), Err(StoreError::UnknownId(id)) if id == "b9"));
        assert!(matches!(
            store.issue(board("b1")),
            Err(StoreError::IdTaken(_))
        ));

        let off = store.turn_off().expect_err("b2 is valid");
        assert!(matches!(off, StoreError::TokensRemain { ref ids, .. } if ids == &["b2"]));
        store.revoke("b2").expect("revoke");
        assert_eq!(store.turn_off().expect("off"), TurnedOff::Now);
    }

    #[test]
    fn an_expired_token_is_refused_from_its_expiry_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = TokenStore::new(dir.path());
        let expires = 1_796_428_800_000;
        let mut grant = board("b1");
        grant.expires_ms = Some(expires);
        let secret = store.issue(grant).expect("issue").secret;
        let line = std::fs::read_to_string(dir.path().join(TOKEN_FILE)).expect("file");
        assert!(line.contains("\"expires_ms\":1796428800000"), "{line}");
        let access = store.access().expect("read");
        let valid = access.authenticate_at(Some(&secret), expires - 1);
        assert_eq!(valid.expect("valid").expect("grant").id, "b1");
        let expired = access.authenticate_at(Some(&secret), expires);
        assert_eq!(
            expired,
            Err(Denied::Unauthenticated(
                "token \"b1\" expired on 2026-12-05T00:00:00Z".into()
            ))
        );
    }

    #[test]
    fn revocation_lines_are_read_strictly_and_only_revoke_what_precedes_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(TOKEN_FILE);
        let grant = serde_json::to_string(&board("b1")).expect("json");
        let orphan = r#"{"revoked":"b0","revoked_ms":5}"#;
        std::fs::write(&path, format!("{orphan}\n{grant}\n")).expect("write");
        let store = TokenStore::new(dir.path());
        let grants = store.grants().expect("read");
        assert_eq!(
            grants[0].revoked_ms, None,
            "a revocation names an earlier grant"
        );
        let bad = r#"{"revoked":"b1","revoked_ms":5,"by":"x"}"#;
        std::fs::write(&path, format!("{grant}\n{bad}\n")).expect("write");
        let err = store.grants().expect_err("unknown field").to_string();
        assert!(err.contains("line 2: unknown field `by`"), "{err}");
    }

    #[test]
    fn files_issued_by_root_belong_to_the_data_directorys_owner() {
        if !Owner::me().expect("/proc/self").is_root() {
            eprintln!("skipped: giving files to another user needs root");
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::chown(dir.path(), Some(65_534), Some(65_534)).expect("chown");
        let data = dir.path().join("state/data");
        let issued = TokenStore::new(&data).issue(board("b1")).expect("issue");
        assert!(issued.given_to.is_some());
        for path in [
            dir.path().join("state"),
            data.clone(),
            data.join(TOKEN_FILE),
            data.join(MARKER_FILE),
        ] {
            let uid = Owner::of(&path).expect("exists").uid;
            assert_eq!(uid, 65_534, "{}", path.display());
        }
        // A file left to root by an older version is given over by the next write.
        std::os::unix::fs::chown(data.join(TOKEN_FILE), Some(0), Some(0)).expect("chown");
        TokenStore::new(&data).revoke("b1").expect("revoke");
        assert_eq!(Owner::of(&data.join(TOKEN_FILE)).expect("file").uid, 65_534);
    }
}
