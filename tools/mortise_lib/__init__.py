"""The `mortise` command's modules (Python 3 standard library only).

registry  what the headers say: layers, their slots and defaults, policies,
          the ready instances (derived from include/mortise, never a copy)
spec      the model language: tokens, parse tree, values, messages with columns
check     a parsed spec against the registry: kinds, order, slots, size ranges
gen       the C composition a spec stands for
cli       the commands: build, run, list, explain, bench, tune
tune      `mortise tune`: race compositions on a program (docs/tune.md)
"""
