# Questbot: `make run` starts the bot on its embedded defaults; `make test` runs every test
# against a private PostgreSQL that the tests start themselves.

MODULE  := github.com/questbot/questbot
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
GO      ?= go

.PHONY: run build test fuzz-short check fuzz deep bench loadtest boardload questload clean chromium

run: build
	@echo "Starting bin/questbot serve (Ctrl-C stops it; its log follows)"
	./bin/questbot serve

# go build -v names each package as it compiles it: a first build compiles every dependency and
# takes minutes, a later one only what changed (and names nothing when nothing did).
build:
	@echo "Compiling questbot into bin/ (the first build takes minutes; the packages follow as they compile)"
	$(GO) build -v -ldflags "-X main.version=$(VERSION)" -o bin/ ./cmd/...

# Short fuzzing runs ride along with the tests, the three at once (each for FUZZ_SHORT, their
# output kept together per fuzzer); `make fuzz` runs the same fuzzers longer.
FUZZ_SHORT ?= 10s
SHORT_FUZZERS := formula/FuzzParse qmm/FuzzDecode qms/FuzzCompile
# A package's tests may take long on a busy machine (bot/boards took over 9 minutes under load):
# their time limit is set here rather than left at go test's default of 10 minutes.
TEST_TIMEOUT ?= 30m
# The tests run through internal/tools/testsum, which prints what go test prints (a line per
# package, the output of the tests that fail) and ends with a line per reason that tests were
# skipped, with their count, and the counts of the tests passed, failed and skipped; it exits
# with go test's status.
#
# make test covers every behaviour the tests check, each at a small size: the engine's perft
# tables to the depth each table names as quick, its random playouts and its comparisons with
# the reference generators over a few dozen games each, and one game a side of the AI against
# random moves; boardload with two pairs of players for a few moves, webload with a dozen
# streams for half a second. Left to other targets: make deep runs the engine's perft tables to
# their end and thousands of games; make questload the quest load test (skipped here, as its
# skip line says); make loadtest and make boardload the load at full size.
test: chromium
	$(GO) build -o bin/testsum ./internal/tools/testsum
	./bin/testsum $(GO) test -json -race -count=1 -timeout $(TEST_TIMEOUT) ./...
	@$(MAKE) --no-print-directory -j3 -O fuzz-short

fuzz-short: $(SHORT_FUZZERS:%=fuzz-short/%)

# fuzz-short/<package>/<fuzzer>: one short fuzzing run.
fuzz-short/%:
	$(GO) test -run '^$$' -fuzz '^$(notdir $*)$$' -fuzztime $(FUZZ_SHORT) -fuzzminimizetime 5s ./$(dir $*)

# Code checks: formatting, vet, staticcheck, and the dependency rules (see the README's layout
# section): the pure packages import only what they are built on, a feature of the bot
# imports the transport, the stores and the core, never another feature, nor the harness (bot/app,
# the composition root, is the one package that knows them all), a view of the board service
# never imports the other view, and every table is named in SQL by one package only, its store
# (migrations/owners_test.go). The board service (bot/boards, without its views) speaks its own
# Tx and plain data: it never depends on the transport's root package (bot), directly or
# through another package (the bot's stores import it); and its views (their own stores and
# tests included) reach the domain store (sessions/board/boardpg) through the service, never by
# importing it.
PURE     := "qmm:qmm" "formula:formula" "engine:engine" "quest:quest qmm formula" \
            "scripts:scripts quest formula github.com/casbin/govaluate" "sessions:sessions engine" \
            "sessions/board:sessions engine" "sessions/tournament:sessions/tournament" \
            "qms:qms qmm formula"
FEATURES := scriptbot questplay relay devtools boards
# The views of the board service: each imports the service, never the other view.
VIEWS    := boards/telegram boards/web
check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: the files above need formatting"; exit 1; }
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) test -count=1 -run '^TestTableOwners$$' ./migrations/
	@for spec in $(PURE); do \
	  pkg=$${spec%%:*}; allowed=$${spec#*:}; \
	  [ -d $$pkg ] || continue; \
	  for dep in $$($(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./$$pkg); do \
	    ok=; for a in $$allowed; do case $$dep in $(MODULE)/$$a|$(MODULE)/$$a/*|$$a|$$a/*) ok=1;; esac; done; \
	    [ -n "$$ok" ] || { echo "dependency rule: $$pkg must not import $$dep"; exit 1; }; \
	  done; \
	done
	@for f in $(FEATURES); do \
	  for dep in $$($(GO) list -deps -f '{{.ImportPath}}' ./bot/$$f/...); do \
	    for other in $(FEATURES) app emulator testkit; do \
	      [ "$$other" = "$$f" ] && continue; \
	      case $$dep in $(MODULE)/bot/$$other|$(MODULE)/bot/$$other/*) \
	        echo "dependency rule: the feature bot/$$f must not import bot/$$other"; exit 1;; esac; \
	    done; \
	  done; \
	done
	@for v in $(VIEWS); do \
	  for dep in $$($(GO) list -deps -f '{{.ImportPath}}' ./bot/$$v); do \
	    for other in $(VIEWS); do \
	      [ "$$other" = "$$v" ] && continue; \
	      case $$dep in $(MODULE)/bot/$$other|$(MODULE)/bot/$$other/*) \
	        echo "dependency rule: the view bot/$$v must not import bot/$$other"; exit 1;; esac; \
	    done; \
	  done; \
	done
	@for dep in $$($(GO) list -deps -f '{{.ImportPath}}' ./bot/boards); do \
	  case $$dep in $(MODULE)/bot) echo "dependency rule: the board service bot/boards must not import the transport $(MODULE)/bot"; exit 1;; esac; \
	done
	@for v in $(VIEWS); do \
	  for dep in $$($(GO) list -f '{{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./bot/$$v/...); do \
	    case $$dep in $(MODULE)/sessions/board/boardpg) \
	      echo "dependency rule: the view bot/$$v must not import sessions/board/boardpg (it goes through the service)"; exit 1;; esac; \
	  done; \
	done

# Longer fuzzing runs than the short ones `make test` does.
FUZZTIME ?= 10m
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 30s ./formula/
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 30s ./qmm/
	$(GO) test -run '^$$' -fuzz '^FuzzUTF16$$' -fuzztime 1m ./qmm/
	$(GO) test -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./qms/
	$(GO) test -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./qms/

# The engine's deep perft tables, long random playouts and reference comparisons over thousands
# of games, and 20 games a side of the AI against random moves, where make test plays a few dozen
# and a couple (a few minutes on an idle machine; the time limit is the tests', as a busy machine
# takes many times longer).
deep:
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./engine -args -deep

# Benchmarks of the pure packages: codec, formulas, player, engine.
BENCHTIME ?= 1s
bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) -cpu 1 ./qmm ./formula ./quest ./engine

# The transport under load: simulated users through the emulator (see the README).
USERS ?= 40
DURATION ?= 10s
loadtest: build
	./bin/questbot loadtest -users $(USERS) -duration $(DURATION)

# Board games through the web API while the players' Telegram chats are watched (see the
# README): PAIRS games between players at RATE moves/s each and BOTS against the bot.
PAIRS ?= 10
RATE ?= 2
BOTS ?= 2
BOARDLOAD_DURATION ?= 20s
boardload: build
	./bin/questbot boardload -pairs $(PAIRS) -rate $(RATE) -bots $(BOTS) -duration $(BOARDLOAD_DURATION)

# The browser tests (the web chat, the web game server's pages) drive a headless Chromium,
# Debian's package: installed when missing and make runs as root. Without root it is not
# installed: one line says so and those tests skip (bot/testkit/bottest.Browser), unless CI or
# QUESTBOT_BROWSER_REQUIRED is set, where a missing Chromium fails here at once.
chromium:
	@if command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" -eq 0 ]; then \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	elif [ -n "$$CI$$QUESTBOT_BROWSER_REQUIRED" ]; then \
	  echo "chromium is missing, and the browser tests are required (CI or QUESTBOT_BROWSER_REQUIRED is set): apt-get install chromium as root"; \
	  exit 1; \
	else \
	  echo "chromium is missing and make does not run as root to install it: the browser tests are skipped (apt-get install chromium as root runs them)"; \
	fi

# Quest steps under load: 40 simulated players (QUESTPLAY_LOAD_USERS) pressing buttons with think time (see
# bot/questplay/load_test.go for the knobs).
questload:
	QUESTPLAY_LOAD_USERS=$${QUESTPLAY_LOAD_USERS:-40} $(GO) test -count=1 -run '^TestLoad$$' -v ./bot/questplay

clean:
	rm -rf bin
