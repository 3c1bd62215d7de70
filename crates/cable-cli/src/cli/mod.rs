//! Argument parsing and dispatch. Errors print one line on standard error
//! and exit 2 (bad usage or scene) or 1 (anything else).

mod anim;
mod args;
mod bench;
mod demo;
mod error;
mod obj;
mod out;
mod run;
mod save_file;
mod setup;
mod signal;
mod staged;
mod svg_out;
mod view_args;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

/// Entry point: parse, dispatch, map errors to exit codes.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            {
                let code = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                };
                let _ = e.print();
                return ExitCode::from(code);
            }
            // One line: clap's first line already reads "error: ...".
            // One line: clap's first paragraph ("error: ..." and, for a missing
            // argument, the indented names) joined.
            let text = e.render().to_string();
            let line = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ");
            eprintln!("{line}");
            return ExitCode::from(2);
        }
    };
    // From the start: an interrupt while a large scene or save is still
    // being read ends the process with 130 like one during the frames.
    signal::catch_interrupts();
    let result = match cli.command {
        Command::Demo(a) => demo::demo(&a),
        Command::Run(a) => run::run(&a),
        Command::Bench(a) => bench::bench(&a),
    };
    // From here an interrupt leaves the exit to this function.
    signal::finishing();
    // A command that failed after an interrupt failed because of it (a
    // pipe its writer closed on Ctrl-C ends the scene early): 130.
    let result = match result {
        Err(_) if signal::interrupted() => Err(error::CliError::Interrupted),
        r => r,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line whatever a path or value holds: control characters escaped.
            let line: String = e
                .message()
                .chars()
                .flat_map(|c| {
                    let esc = c.escape_default();
                    let keep = (!c.is_control()).then_some(c);
                    keep.into_iter().chain(esc.filter(move |_| keep.is_none()))
                })
                .collect();
            eprintln!("error: {line}");
            ExitCode::from(e.code())
        }
    }
}
