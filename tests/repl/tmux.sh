#!/bin/bash
# Drives the REPL in a real terminal (tmux): the banner and prompt, line editing with the
# arrow keys (type a line, Left x3, insert text, Enter), history recall with Up, the
# continuation prompt of a multi-line block, Ctrl-C (while typing and while a loop runs),
# and the history file.
# Usage: tmux.sh SPMDRUN.  Exits 77 (CTest: skipped) when tmux is not installed.
spmdrun=$1
if ! command -v tmux > /dev/null 2>&1; then echo "skipped: tmux not installed"; exit 77; fi
dir=$(mktemp -d)
sock="spmdrun-test-$$"
t() { tmux -L "$sock" "$@"; }
cleanup() { t kill-server > /dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
t -f /dev/null new-session -d -x 120 -y 40 -s repl \
  "env SPMDRUN_HISTORY=$dir/history TERM=xterm $spmdrun --devices cpu:2; sleep 30"
screen() { t capture-pane -p -t repl; }
# Waits until the screen has `n` lines matching `pattern`.
wait_for() {
  local pattern=$1 n=${2:-1}
  for _ in $(seq 100); do
    [ "$(screen | grep -c -- "$pattern")" -ge "$n" ] && return 0
    sleep 0.1
  done
  echo "FAIL: timed out waiting for '$pattern' (x$n); the screen:"; screen; exit 1
}
wait_for '^>>>'
screen | grep -q 'on 2 CPU devices' || { echo "FAIL: no banner"; screen; exit 1; }
t send-keys -t repl 'let x = arange(4.0)' Enter
wait_for '^>>>' 2
# Edit in the middle of the line: "x + 1.0", three steps left, insert "10" -> x + 101.0
t send-keys -t repl 'x + 1.0' Left Left Left '10' Enter
wait_for '101\. 102\. 103\. 104\.'
# Up recalls that line; Enter runs it again.
t send-keys -t repl Up Enter
wait_for '101\. 102\. 103\. 104\.' 2
# A block continues on "... " lines.
t send-keys -t repl 'let y = {' Enter
wait_for '^\.\.\.'
t send-keys -t repl 'x * 2' Enter '}' Enter 'y' Enter
wait_for '^\[0\. 2\. 4\. 6\.\]'
# Ctrl-C drops an unfinished input and gives a fresh prompt.
t send-keys -t repl 'let junk = (1,' Enter
wait_for '^\.\.\.' 3
t send-keys -t repl C-c
wait_for '\^C'
t send-keys -t repl '40 + 2' Enter
wait_for '^42$'
# Ctrl-C during a long run stops it: "interrupted", a fresh prompt, and the var the
# stopped input assigned keeps its value.
t send-keys -t repl 'var v = 1' Enter
t send-keys -t repl 'for t in 0..2000000000 { v = v + 1; if t == 0 { print("looping") } }' Enter
wait_for '^looping$'
t send-keys -t repl C-c
wait_for '^interrupted$'
wait_for '^>>>' 9
t send-keys -t repl 'v + 41' Enter
wait_for '^42$' 2
t send-keys -t repl ':quit' Enter
# The REPL writes its history as it quits: wait for the whole line, not a part of it.
for _ in $(seq 100); do grep -Eq 'x( |\\040)\+( |\\040)101\.0' "$dir/history" 2>/dev/null && break; sleep 0.1; done
grep -Eq 'x( |\\040)\+( |\\040)101\.0' "$dir/history" || { echo "FAIL: history file lacks the edited line"; cat "$dir/history"; exit 1; }
echo ok
