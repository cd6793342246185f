//! `referee board --game ID --server URL --feed SPEC`: the bridge from an electronic board's
//! feed to a game (see [`crate::bridge`]).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::bridge::{self, FeedSpec, Options, Server};

/// How long a blocked read of standard input may hold the exit up: tokio reads it on a
/// thread that cannot be interrupted.
const EXIT_WAIT: Duration = Duration::from_millis(200);

pub struct Args {
    pub game: String,
    pub server: String,
    pub feed: String,
    pub token_file: Option<PathBuf>,
    pub ca_cert: Option<PathBuf>,
    pub once: bool,
}

pub fn run(args: Args) -> ExitCode {
    let feed = match FeedSpec::parse(&args.feed) {
        Ok(feed) => feed,
        Err(e) => return fail(&e),
    };
    let options = Options {
        game: args.game,
        server: Server {
            url: args.server,
            ca_cert: args.ca_cert,
            token_file: args.token_file,
        },
        feed,
        once: args.once,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("referee: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(bridge::run(&options));
    runtime.shutdown_timeout(EXIT_WAIT);
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(error: &bridge::Error) -> ExitCode {
    eprintln!("referee: {error}");
    ExitCode::from(error.exit_code())
}
