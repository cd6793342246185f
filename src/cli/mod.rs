//! The command line: `serve`, `replay`, `import`, `export`, `audit`, `board`, `perft`.

mod audit;
mod board;
mod copy;
mod export;
mod health;
mod import;
mod perft;
pub(crate) mod remote;
mod replay;
mod serve;
mod store;
mod token;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::PossibleValue;
use clap::{Parser, Subcommand, ValueEnum};

use crate::games::Variant;

pub use crate::records::pdn;
use crate::service::{self, Limits};

/// A rules-compliance referee for board games.
#[derive(Debug, Parser)]
#[command(name = "referee", version, about = about())]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the gRPC service over an embedded log.
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:50051")]
        addr: std::net::SocketAddr,
        /// Directory of the embedded log (created if missing). With --store it holds only
        /// the token file and the audit signing key.
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
        /// Keep the log in PostgreSQL instead of the embedded sled log: a `postgres://` URL
        /// or a `key=value` connection string (several hosts and
        /// `target_session_attrs=read-write` for a highly available pair). Several instances
        /// may serve one database.
        #[arg(long, value_name = "URL")]
        store: Option<String>,
        /// With --store: the certificate authority (PEM) that signed the database's
        /// certificate. Every encrypted connection is then checked against it and the host
        /// name; `sslmode=verify-full` in --store requires it (`require` without it encrypts
        /// but does not check whom it talks to, as libpq does).
        #[arg(long, value_name = "FILE", requires = "store")]
        store_ca: Option<PathBuf>,
        /// Serve over TLS with this certificate chain (PEM); needs --tls-key.
        #[arg(long)]
        tls_cert: Option<PathBuf>,
        /// The certificate's private key (PEM).
        #[arg(long)]
        tls_key: Option<PathBuf>,
        /// Serve without TLS on a non-loopback address (only behind a TLS-terminating proxy
        /// or on a closed network).
        #[arg(long)]
        insecure: bool,
        /// Most Play and WatchGame streams one token may hold open.
        #[arg(long, default_value_t = Limits::SERVE_DEFAULTS.max_streams_per_token)]
        max_streams_per_token: usize,
        /// Requests per second one token may sustain (calls, streams opened, stream messages).
        #[arg(long, default_value_t = Limits::SERVE_DEFAULTS.rate_per_token)]
        rate_per_token: f64,
        /// Requests one token may make at once after being idle.
        #[arg(long, default_value_t = Limits::SERVE_DEFAULTS.burst_per_token)]
        burst_per_token: u32,
        /// How long (ms) a WatchGame stream may leave its buffer full (the console does not
        /// read) before the stream ends with ABORTED and the seq to resume from.
        #[arg(long, default_value_t = millis(service::WATCHER_LAG))]
        watcher_lag_ms: u64,
        /// What all WatchGame streams together may hold for consoles that do not read (MiB),
        /// beyond 64 KiB each: a console that reads never needs it; one that cannot get its
        /// share within the lag is ended as above. At least 1.
        #[arg(long, default_value_t = service::WATCHERS_MEMORY_MB)]
        watchers_memory_mb: usize,
        /// How long (ms) requests in flight get to finish after SIGTERM/SIGINT; closing the
        /// log then gets 2 s before the process exits anyway (a second signal: at once).
        #[arg(long, default_value_t = millis(service::SHUTDOWN_GRACE))]
        shutdown_grace_ms: u64,
        /// Most games whose referee is kept in memory; past it the least recently used game
        /// nobody watches is dropped, and replayed from the log when next used.
        #[arg(long, default_value_t = service::CacheLimits::DEFAULT.max_games)]
        live_games: usize,
        /// Seconds a game may go unused before its referee is dropped from memory.
        #[arg(long, default_value_t = service::CacheLimits::DEFAULT.idle.as_secs())]
        live_idle_secs: u64,
        /// Serve the arbiter console (plain HTTP: the page, its JSON API and live stream) on
        /// this address, e.g. 127.0.0.1:8080. Off unless given; off loopback only with
        /// --insecure (behind a TLS-terminating proxy), as it carries tokens.
        #[arg(long)]
        console: Option<std::net::SocketAddr>,
        /// Turn on the console's public view for spectators (/public), this many seconds
        /// behind the boards (broadcasts delay moves against cheating). Off unless given.
        #[arg(long)]
        public_delay_s: Option<u64>,
        /// Seconds without an event, while its clock runs, before the console shows a board
        /// as silent.
        #[arg(long, default_value_t = 60)]
        silent_s: u64,
    },
    /// Replay a game log and print its rulings.
    Replay {
        /// A log in the interchange format (JSON Lines) or an audit bundle. Several files, or
        /// directories (their .jsonl files, recursively), replay in one process over all
        /// cores, each file's output marked with its name.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// One ruling per line as JSON (the log format's rulings).
        #[arg(long)]
        json: bool,
    },
    /// Append a log in the interchange format, the draughts games of a PDN file, the xiangqi
    /// games of a PGN file, or a renju record, to the store as new games; prints each game's id.
    ///
    /// A PDN file (extension .pdn, or text opening with a [Tag] or a move number) becomes
    /// one game per PDN game, with id STEM-N (N counted from 1), or only game N with --game.
    /// Each move is written with the pieces it takes; the recorded result becomes the loser's
    /// resignation, or for a draw an accepted offer (draughts 12.4, after 40 moves each) or
    /// else the arbiter's declaration, unless the referee ends the game by itself.
    ///
    /// A xiangqi PGN file (extension .pgn, a [Game "Chinese Chess"] tag, or xiangqi moves;
    /// UTF-8, Big5 or GBK) takes moves in ICCS, WXF or Chinese notation; one game is STEM,
    /// several STEM-N. Its tags go into the header; a win becomes the loser's resignation, a
    /// draw the last mover's offer and its acceptance (xiangqi 4.2).
    ///
    /// A renju record (extension .renju, a [Variant "renju"] tag, or a first move such as h8)
    /// is one game, STEM: PGN-like text with one number per stone and the opening's steps as
    /// comments ({swap}, {declare N}, {offer P1 P2}; the stone after an offer is white's
    /// choice), its Black and White tags naming who holds each colour after the swaps and
    /// [Opening "soosorv-8"] the opening rule; or a renju program's bare move list (h8 i9 j10,
    /// 1. h8 2. i9, h8i9j10). A win becomes the loser's resignation, a draw an accepted offer.
    Import {
        /// A log in the interchange format (JSON Lines), a PDN file, a xiangqi PGN file or a
        /// renju record.
        file: PathBuf,
        /// PDN or PGN: import only this game of the file (1 = the first).
        #[arg(long)]
        game: Option<usize>,
        /// What the file is, where its name and content leave it open (an untagged list such
        /// as `h8i9` could be xiangqi ICCS or renju points): log, pdn, pgn (xiangqi) or renju.
        #[arg(long, value_parser = parse_format)]
        format: Option<crate::records::Format>,
        /// Directory of the embedded log (not while a server uses it).
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
        /// Write each game as a log file DIR/ID.jsonl instead of storing it.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["data", "server"])]
        log_out: Option<PathBuf>,
        /// Import through a running server (http://HOST:PORT or https://HOST:PORT) instead of
        /// opening the store: no need to stop it. The token comes from --token-file or
        /// REFEREE_TOKEN; an arbiter's or the operator's (creating games needs it).
        #[arg(long, value_name = "URL", conflicts_with = "data")]
        server: Option<String>,
        /// For --server: a file whose first line is the bearer token.
        #[arg(long, value_name = "FILE", requires = "server")]
        token_file: Option<PathBuf>,
        /// For an https --server: the PEM certificate (or its CA) to trust.
        #[arg(long, value_name = "FILE", requires = "server")]
        ca_cert: Option<PathBuf>,
    },
    /// Bridge an electronic board to a game: read the board's feed and stream each report
    /// into the game over gRPC (an event id per report: a resend is not stored twice), saying
    /// what was sent and what the referee derived. Waits for the server while it is away
    /// (unless --once). Exit 0 when a file or standard input ends and every report is
    /// acknowledged; 1 when a live feed or the server goes away for good; 2 for bad input.
    /// Feeds: docs/board-feed.md.
    Board {
        /// The game to feed (created beforehand).
        #[arg(long)]
        game: String,
        /// The server: http://HOST:PORT or https://HOST:PORT. The token comes from
        /// --token-file or REFEREE_TOKEN (a board token for the game, or an arbiter's).
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:50051")]
        server: String,
        /// Where the reports come from: -, stdin, file:PATH (or a file's path), tcp:HOST:PORT,
        /// serial:/dev/ttyXXX (line settings set with stty beforehand), or
        /// livechess[:ws://HOST:PORT/api/v1.0][#SERIAL] (DGT LiveChess).
        #[arg(long, value_name = "SPEC")]
        feed: String,
        /// A file whose first line is the bearer token.
        #[arg(long, value_name = "FILE")]
        token_file: Option<PathBuf>,
        /// For an https server: the PEM certificate (or its CA) to trust.
        #[arg(long, value_name = "FILE")]
        ca_cert: Option<PathBuf>,
        /// Exit (1) at once when the server is away instead of waiting for it.
        #[arg(long)]
        once: bool,
    },
    /// Write a stored game: --log as an interchange log (the header with its tags, then every
    /// stored event as it was acknowledged: what `referee replay` and `referee import` read),
    /// or --pdn for a draughts game as PDN (the moves that stand after the referee's judgment,
    /// up to the end; full capture paths only where start and end are ambiguous; result in
    /// points, 2-0 1-1 0-2, tags carried over), or --renju for a renju game as a renju record
    /// (the stones and opening steps that stand, one number per stone, steps as {swap}
    /// {declare N} {offer ...} comments, Black and White naming who holds each colour after
    /// the swaps, the opening rule as an Opening tag, the result).
    #[command(group(clap::ArgGroup::new("format").required(true).args(["log", "pdn", "renju"])))]
    Export {
        /// The game id.
        game: String,
        /// Write the interchange log (JSON Lines).
        #[arg(long)]
        log: bool,
        /// Write PDN (draughts).
        #[arg(long)]
        pdn: bool,
        /// Write a renju record (renju).
        #[arg(long)]
        renju: bool,
        /// Directory of the embedded log (not while a server uses it).
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
    /// Signed audit bundles of games.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// The store: check it against what was acknowledged, adopt it as it is, rebuild it
    /// from audit exports, or copy it to another store (sled to PostgreSQL and back).
    Store {
        #[command(subcommand)]
        command: StoreCommand,
    },
    /// Bearer tokens (access control is on once one is issued, until `token off`).
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Ask a running server's health service (grpc.health.v1) whether it serves; exit 0 only
    /// for SERVING (container health checks, scripts).
    Health {
        /// The server's host:port.
        #[arg(long, default_value = "127.0.0.1:50051")]
        addr: String,
        /// Connect over TLS, trusting this certificate (PEM: the server's own if self-signed,
        /// or its CA's).
        #[arg(long)]
        tls_ca: Option<PathBuf>,
        /// The name the server's certificate must carry (default: the host of --addr).
        #[arg(long, requires = "tls_ca")]
        tls_domain: Option<String>,
        /// The service to ask about ("" for the server as a whole).
        #[arg(long, default_value = "referee.v1.Referee")]
        service: String,
    },
    /// Describe the games as JSON: each one's log name, sides, squares, move fields, rule
    /// options with their values, scoring and notation (what a board or a client needs to
    /// write its events).
    Games,
    /// Count the leaves of the legal-move tree.
    Perft {
        /// The game.
        #[arg(long, value_enum)]
        variant: Variant,
        /// Position to start from (default: the variant's start).
        #[arg(long)]
        fen: Option<String>,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
    },
}

#[derive(Debug, Subcommand)]
enum AuditCommand {
    /// Write a game's signed bundle: header, events with seq/receive time/writer/chain hash,
    /// rulings, result, Ed25519 signature.
    Export {
        game: String,
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
        /// Write here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Write a tournament's signed export: every game whose id starts with EVENT, each
    /// game's result and chain head, and the results table per player.
    Tournament {
        /// The event: a game-id prefix, e.g. `2026-ch-`.
        event: String,
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
        /// Write here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Who played which game: JSON Lines `{"game":"...","white":"...","black":"..."}`
        /// (`red` for xiangqi). Without a pairing a side is listed as `GAME SIDE`.
        #[arg(long)]
        pairings: Option<PathBuf>,
    },
    /// Check a bundle's (or tournament export's) signature, chain and rulings (or results
    /// table); exit 0 only if all hold.
    Verify {
        file: PathBuf,
        /// The public key (hex) the bundle must be signed with.
        #[arg(long)]
        key: Option<String>,
    },
    /// Print the server's public key (hex), creating the key pair on first use.
    Key {
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
enum StoreCommand {
    /// Verify every game of a copy of the store against the anchor of what was acknowledged
    /// and its whole hash chain, game by game; exit 0 only if every game holds. Never writes
    /// to the store (not while a server uses it).
    Check {
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
    /// Accept the store as it is now and anchor it anew: after restoring the directory from
    /// a copy on purpose, or when the anchor itself is damaged. Prints what differed from the
    /// old anchor and verifies every chain.
    Adopt {
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
    /// Restore games into a data directory from verified audit bundles (and the healthy
    /// games of a damaged store), with their original seqs, times and hashes; says for each
    /// game what could not be restored. Exit 0 only if nothing acknowledged is missing.
    Rebuild {
        /// The directory to rebuild into (new, or without the games restored).
        #[arg(long)]
        data: PathBuf,
        /// A directory of audit bundles (`referee audit export`, ExportAudit).
        #[arg(long, value_name = "DIR")]
        from_bundles: PathBuf,
        /// The damaged store: its healthy games are carried over, its acknowledged heads say
        /// what the bundles lack, and its tokens and audit key are copied.
        #[arg(long, value_name = "DIR")]
        from_store: Option<PathBuf>,
        /// The public key (hex) every bundle must be signed with.
        #[arg(long)]
        key: Option<String>,
    },
    /// Copy every game of one store into another (sled to PostgreSQL, PostgreSQL to sled),
    /// each record as it was acknowledged: same seqs, event ids, writers, receive times and
    /// hashes, so every game's head hash, and every audit bundle signed before, stay valid.
    /// Each chain is verified as it is read; each copied game is read back from the target,
    /// compared record by record, and its head printed (COPIED GAME N records head HEX).
    ///
    /// A sled source is read from a copy taken under its lock (stop its server first); a
    /// PostgreSQL source may be live: each game is copied up to its head when the copy
    /// starts. Refused, nothing written, if the target holds a game of the same id with other
    /// records. Each game is written whole in one transaction, so an interrupted copy leaves
    /// only whole games: run it again to continue (games already in the target with the same
    /// head are verified and skipped, ALREADY). Tokens and the audit signing key are not
    /// copied: they stay in --data (and in the database's shared table, which servers on
    /// PostgreSQL fill themselves). Exit 0 only if every game was copied and
    /// verified on both sides.
    Copy {
        /// The store to read: sled:DIR, or a PostgreSQL connection string (postgres://...,
        /// postgresql://... or key=value ...).
        #[arg(long, value_name = "STORE")]
        from: String,
        /// The store to write (a sled directory is created if missing): sled:DIR, or a
        /// PostgreSQL connection string.
        #[arg(long, value_name = "STORE")]
        to: String,
        /// The certificate authority (PEM) that signed the database's certificate, for a
        /// PostgreSQL side whose connection string says `sslmode=verify-full` (see
        /// `serve --store-ca`).
        #[arg(long, value_name = "FILE")]
        store_ca: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum TokenCommand {
    /// Issue a token and print its secret (shown once, stored hashed).
    Issue {
        /// Public name of the token, recorded as the writer of its events.
        #[arg(long)]
        id: String,
        /// board, arbiter or auditor.
        #[arg(long)]
        role: String,
        /// Board: the game it writes to.
        #[arg(long)]
        game: Option<String>,
        /// Board: white, red, black or both.
        #[arg(long)]
        side: Option<String>,
        /// Arbiter: the game-id prefix of its tournament.
        #[arg(long)]
        tournament: Option<String>,
        /// Refuse the token after this: a date (2026-12-31: the end of that day, UTC) or an
        /// RFC 3339 timestamp (2026-12-31T18:00:00+01:00). Default: valid until revoked.
        #[arg(long)]
        expires: Option<String>,
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
    /// List issued tokens (ids, scopes and states, never secrets).
    List {
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
    /// Revoke a token: a running server refuses it within a second. The token file only
    /// grows (a revocation line); the id stays taken.
    Revoke {
        /// The token's id.
        id: String,
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
    /// Turn access control off, deliberately: every call is then accepted without a token.
    /// Refused while the token file holds tokens; emptying or deleting the file alone revokes
    /// every token but keeps access control on (every call refused).
    Off {
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
}

/// A duration as a flag's (or a message's) milliseconds.
fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Runs the command line; exit code 2 for bad input, 1 for failures.
/// The first line of `referee --help`: every game by its title.
fn about() -> String {
    let titles: Vec<&str> = Variant::ALL.iter().map(|v| v.spec().title).collect();
    format!("A rules-compliance referee for {}.", titles.join(", "))
}

/// `--variant` takes a game's log name; the help lists them with their titles.
impl ValueEnum for Variant {
    fn value_variants<'a>() -> &'a [Self] {
        Variant::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.spec().title))
    }
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve {
            addr,
            data,
            store,
            store_ca,
            tls_cert,
            tls_key,
            insecure,
            max_streams_per_token,
            rate_per_token,
            burst_per_token,
            watcher_lag_ms,
            watchers_memory_mb,
            shutdown_grace_ms,
            live_games,
            live_idle_secs,
            console,
            public_delay_s,
            silent_s,
        } => serve::run(&serve::Options {
            addr,
            data,
            store,
            store_ca,
            tls_cert,
            tls_key,
            insecure,
            limits: Limits {
                max_streams_per_token,
                rate_per_token,
                burst_per_token,
            },
            watcher_lag: std::time::Duration::from_millis(watcher_lag_ms),
            watchers_memory: watchers_memory_mb.saturating_mul(1024 * 1024),
            shutdown_grace: std::time::Duration::from_millis(shutdown_grace_ms),
            cache: service::CacheLimits {
                max_games: live_games,
                idle: std::time::Duration::from_secs(live_idle_secs),
            },
            console,
            console_config: service::console::ConsoleConfig {
                public_delay: public_delay_s.map(std::time::Duration::from_secs),
                silent: std::time::Duration::from_secs(silent_s),
            },
        }),
        Command::Replay { files, json } => match files.as_slice() {
            [file] if !file.is_dir() => replay::run(file, json),
            _ => replay::run_many(&files, json),
        },
        Command::Import {
            file,
            game,
            format,
            data,
            log_out,
            server,
            token_file,
            ca_cert,
        } => {
            let target = match (&log_out, &server) {
                (Some(dir), _) => import::Target::Files(dir),
                (None, Some(url)) => import::Target::Server(remote::Remote {
                    url,
                    ca_cert: ca_cert.as_deref(),
                    token_file: token_file.as_deref(),
                }),
                (None, None) => import::Target::Store(&data),
            };
            import::run(&file, game, format, target)
        }
        Command::Export {
            game,
            log,
            renju,
            data,
            ..
        } => {
            let format = if log {
                export::Format::Log
            } else if renju {
                export::Format::Renju
            } else {
                export::Format::Pdn
            };
            export::run(&game, format, &data)
        }
        Command::Board {
            game,
            server,
            feed,
            token_file,
            ca_cert,
            once,
        } => board::run(board::Args {
            game,
            server,
            feed,
            token_file,
            ca_cert,
            once,
        }),
        Command::Store { command } => match command {
            StoreCommand::Check { data } => store::check(&data),
            StoreCommand::Adopt { data } => store::adopt(&data),
            StoreCommand::Rebuild {
                data,
                from_bundles,
                from_store,
                key,
            } => store::rebuild(&store::Rebuild {
                data: &data,
                bundles: &from_bundles,
                from_store: from_store.as_deref(),
                key: key.as_deref(),
            }),
            StoreCommand::Copy { from, to, store_ca } => copy::run(&from, &to, store_ca.as_deref()),
        },
        Command::Token { command } => match command {
            TokenCommand::Issue {
                id,
                role,
                game,
                side,
                tournament,
                expires,
                data,
            } => token::issue(
                &data,
                &token::Request {
                    id: &id,
                    role: &role,
                    game: game.as_deref(),
                    side: side.as_deref(),
                    tournament: tournament.as_deref(),
                    expires: expires.as_deref(),
                },
            ),
            TokenCommand::List { data } => token::list(&data),
            TokenCommand::Revoke { id, data } => token::revoke(&data, &id),
            TokenCommand::Off { data } => token::off(&data),
        },
        Command::Audit { command } => match command {
            AuditCommand::Export { game, data, out } => audit::export(&game, &data, out.as_deref()),
            AuditCommand::Tournament {
                event,
                data,
                out,
                pairings,
            } => audit::tournament(&event, &data, out.as_deref(), pairings.as_deref()),
            AuditCommand::Verify { file, key } => audit::verify(&file, key.as_deref()),
            AuditCommand::Key { data } => audit::key(&data),
        },
        Command::Health {
            addr,
            tls_ca,
            tls_domain,
            service,
        } => health::run(&health::Probe {
            addr,
            tls_ca,
            tls_domain,
            service,
        }),
        Command::Games => {
            let text = serde_json::to_string_pretty(&crate::event::describe_games());
            println!("{}", text.expect("a spec is plain data"));
            ExitCode::SUCCESS
        }
        Command::Perft {
            variant,
            fen,
            depth,
        } => perft::run(variant, fen.as_deref(), depth),
    }
}

/// `--format` of `import`: a record format by the name `ImportGame` takes too.
fn parse_format(text: &str) -> Result<crate::records::Format, String> {
    crate::records::Format::parse(text)
        .ok_or_else(|| format!("{text:?} is not log, pdn, pgn or renju"))
}
