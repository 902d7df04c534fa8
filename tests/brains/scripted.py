"""A small Gomocup brain for tests, misbehaving on purpose.

    python scripted.py MODE [N]

It plays the first empty cell nearest the centre (row by row), and from its
N-th move (default 1) on does what MODE says:

    good      nothing wrong
    crash     exits with code 3 instead of answering
    crash-once  the same, once in all (the file FIVEROW_BRAIN_ONCE marks it done)
    hang      never answers (sleeps)
    garbage   answers a line that is not a move
    illegal   answers an occupied cell (or off the board on an empty one)
    error     answers ERROR
    slow      answers after 1.5 s
    drop      drops (ignores) a command that arrives within 0.2 s of its last answer,
              as a brain busy finishing its answer would
    die       is killed (SIGKILL, by itself) just after its answer: between moves
    extra-error  after each move, also an unrequested "ERROR ..." line

and, from the start, protocol dialects of real brains:

    rapfi     reads SWAP2BOARD stones as x,y,field, as Rapfi does: a stone
              without a field gets "ERROR Color is not a valid value ..." at
              once and is left out (and with no stone left it opens anew);
              INFO rule other than 0, 1, 2, 4, 5, 6 gets "ERROR Unknown rule id"
    gomocup2020  reads SWAP2BOARD stones as x,y only (the 2020 announcement):
              a stone with a field makes the block one "ERROR" at DONE
    swap2-white  answers 3 Swap2 stones with a 4th (it takes white) instead of SWAP
    no-about  never answers ABOUT
    no-restart  answers RESTART with "UNKNOWN" (START works)
    bad-size  answers START and RECTSTART with "ERROR unsupported size"

With FIVEROW_BRAIN_LOG set, it appends every line it reads to that file.

With FIVEROW_BRAIN_PIDS set, it appends its pid to that file (the tests check
that every brain is gone after a match). It imports nothing from fiverow.
"""

import os
import signal
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
FROM_MOVE = int(sys.argv[2]) if len(sys.argv) > 2 else 1

if os.environ.get("FIVEROW_BRAIN_PIDS"):
    with open(os.environ["FIVEROW_BRAIN_PIDS"], "a") as f:
        f.write(f"{os.getpid()}\n")

width = height = 0
board = {}
moves = 0
block = None
answered_at = 0.0


def say(line):
    global answered_at
    sys.stdout.write(line + "\r\n")
    sys.stdout.flush()
    answered_at = time.monotonic()


def choose():
    cx, cy = width // 2, height // 2
    cells = sorted(
        ((x, y) for y in range(height) for x in range(width) if (x, y) not in board),
        key=lambda p: (max(abs(p[0] - cx), abs(p[1] - cy)), p[1], p[0]),
    )
    return cells[0]


def move():
    global moves
    moves += 1
    if moves >= FROM_MOVE and MODE != "good":
        once = os.environ.get("FIVEROW_BRAIN_ONCE", "")
        if MODE == "crash" or (MODE == "crash-once" and once and not os.path.exists(once)):
            if MODE == "crash-once":
                open(once, "w").close()
            sys.stderr.write("scripted brain: crashing on purpose\n")
            sys.exit(3)
        if MODE == "hang":
            time.sleep(3600)
        if MODE == "garbage":
            return say("I think therefore I am")
        if MODE == "illegal":
            x, y = next(iter(board)) if board else (width, height)
            return say(f"{x},{y}")
        if MODE == "error":
            return say("ERROR I would rather not")
        if MODE == "slow":
            time.sleep(1.5)
    x, y = choose()
    board[(x, y)] = 1
    say(f"MESSAGE scripted {MODE}")
    say(f"{x},{y}")
    if moves >= FROM_MOVE and MODE == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if moves >= FROM_MOVE and MODE == "extra-error":
        say("ERROR an unrequested line")


RAPFI_RULES = ("0", "1", "2", "4", "5", "6")


for raw in sys.stdin:
    line = raw.strip()
    if os.environ.get("FIVEROW_BRAIN_LOG"):
        with open(os.environ["FIVEROW_BRAIN_LOG"], "a") as log:
            log.write(f"{os.getpid()} {line}\n")
    if MODE == "drop" and time.monotonic() - answered_at < 0.2 and line:
        continue  # busy: the command is lost
    word = line.split(" ")[0].upper()
    if block is not None:
        if word == "DONE":
            kind, block_lines = block
            block = None
            board = {}
            if kind == "SWAP2BOARD" and MODE == "gomocup2020":
                if any(item.count(",") != 1 for item in block_lines):
                    say("ERROR SWAP2BOARD: a line is not x,y")
                    continue
            for item in block_lines:
                parts = [int(v) for v in item.split(",")]
                board[(parts[0], parts[1])] = parts[2] if len(parts) > 2 else 1
            if kind == "SWAP2BOARD":
                if not board:
                    stones = []
                    for _ in range(3):
                        xy = choose()
                        board[xy] = 1
                        stones.append(f"{xy[0]},{xy[1]}")
                    say(" ".join(stones))
                elif MODE == "swap2-white" and len(board) == 3:
                    x, y = choose()
                    board[(x, y)] = 1
                    say(f"{x},{y}")
                else:
                    say("SWAP")
            else:
                move()
        elif MODE == "rapfi" and block[0] == "SWAP2BOARD" and line.count(",") != 2:
            say("ERROR Color is not a valid value, must be one of [1, 2, 3].")
        else:
            block[1].append(line)
        continue
    if word in ("START", "RECTSTART") and MODE == "bad-size":
        say("ERROR unsupported size")
    elif word == "START":
        width = height = int(line.split()[1])
        board = {}
        say("OK")
    elif word == "RECTSTART":
        width, height = (int(v) for v in line.split()[1].split(","))
        board = {}
        say("OK")
    elif word == "RESTART" and MODE == "no-restart":
        say("UNKNOWN RESTART")
    elif word == "RESTART":
        board = {}
        say("OK")
    elif word in ("BOARD", "SWAP2BOARD"):
        block = (word, [])
    elif word == "BEGIN":
        move()
    elif word == "TURN":
        x, y = (int(v) for v in line.split()[1].split(","))
        board[(x, y)] = 2
        move()
    elif word == "ABOUT" and MODE == "no-about":
        pass
    elif word == "ABOUT":
        say(f'name="scripted", version="1", mode="{MODE}"')
    elif word == "END":
        break
    elif word == "INFO" and MODE == "rapfi" and line.split()[1:2] == ["rule"]:
        value = line.split()[2]
        if value not in RAPFI_RULES:
            say(f"ERROR Unknown rule id: {value}. Rule is reset to freestyle...")
    elif word == "INFO" or not word:
        pass
    else:
        say(f"UNKNOWN {word}")
