// Internal to the compiler: Grammar -> plain productions and terminal automata
// (CompiledGrammar::Impl fields terminals, nonterminal_names, rhs, prod_begin, prod_lhs,
// nt_prod_begin, nullable).
//
// Passes: EBNF operators become fresh nonterminals (x* and x+ left-recursive, cheap for Earley);
// adjacent literals merge; identical sub-expressions share one nonterminal and identical
// terminals one automaton; terminals are determinised within CompileOptions' budget; duplicate
// alternatives and productions that can never complete are removed; nullable nonterminals are
// computed for the Earley prediction rule.
// Errors: throws GrammarError "line L, column C: ..." for an undefined rule, a bad regex or one
// past the automaton bound; "undefined start rule"; "the grammar accepts no string".
#pragma once

#include "grammar/compiler_internal.h"

namespace ai00::internal::grammar {

void lower_grammar(const Grammar& grammar, const CompileOptions& options,
                   CompiledGrammar::Impl& impl);

}  // namespace ai00::internal::grammar
