//! Progress bars that also show in a log: on a terminal indicatif's bar; anywhere else
//! (CI, `npm run`, a captured stderr, where indicatif draws nothing) the same line printed
//! every [`LOG_EVERY`], so a build that embeds for minutes is never silent.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a bar prints its line when stderr is not a terminal.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// A bar over `len` items drawn with `template` (indicatif's), hidden when `shown` is false
/// or there is nothing to do.
pub fn bar(shown: bool, len: usize, template: &str) -> ProgressBar {
    if !shown || len == 0 {
        return ProgressBar::hidden();
    }
    let target = if io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::term_like_with_hz(Box::new(LogLines::default()), 1)
    };
    let bar = ProgressBar::with_draw_target(Some(len as u64), target);
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// A "terminal" that prints the drawn state as one plain line every [`LOG_EVERY`], the
/// first after as long: work that ends sooner prints nothing.
#[derive(Debug, Default)]
struct LogLines(Mutex<Lines>);

#[derive(Debug)]
struct Lines {
    line: String,
    printed: Instant,
    last: String,
}

/// Made when the bar is: its first line is due [`LOG_EVERY`] after.
impl Default for Lines {
    fn default() -> Self {
        Lines {
            line: String::new(),
            printed: Instant::now(),
            last: String::new(),
        }
    }
}

impl TermLike for LogLines {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        self.write_str(s)
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        if s != "\r" {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .line
                .push_str(s);
        }
        Ok(())
    }
    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> io::Result<()> {
        let mut l = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let line = std::mem::take(&mut l.line).trim().to_string();
        let due = l.printed.elapsed() >= LOG_EVERY;
        if !line.is_empty() && line != l.last && due {
            writeln!(io::stderr(), "{line}")?;
            l.printed = Instant::now();
            l.last = line;
        }
        Ok(())
    }
}
