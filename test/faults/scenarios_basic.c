// SPDX-License-Identifier: MIT
// The original four scenarios: clean, clean-read, punt and nobatch, each a single
// run_batched() call.
#define _GNU_SOURCE
#include "inject.h"

// 32 per enter is well above any sane BATCH threshold.
void scenario_clean(struct ctx *c) { run_batched(c, OP_NOP, 32, 0); }

void scenario_clean_read(struct ctx *c) { run_batched(c, OP_READ, 16, 0); }

// Cached data would complete inline; IOSQE_ASYNC alone sends it to io-wq.
void scenario_punt(struct ctx *c) { run_batched(c, OP_READ, 16, IOSQE_ASYNC); }

void scenario_nobatch(struct ctx *c) { run_batched(c, OP_NOP, 1, 0); }
