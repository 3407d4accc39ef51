// Tokeniser with the whitespace rules of transformers' Jinja2 environment
// (trim_blocks, lstrip_blocks, keep_trailing_newline=False).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "value.h"

namespace jinja {

enum class Tok {
  Data,        // text between tags (and raw blocks)
  VarBegin,    // {{
  VarEnd,      // }}
  BlockBegin,  // {%
  BlockEnd,    // %}
  Name,
  String,
  Integer,
  Float,
  Op,          // operator; text holds it ("(", "==", "|", ...)
  Eof,
  Error,       // a lexical error; raised when the parser reaches it (text = message)
};

struct Token {
  Tok type;
  std::string text;  // name, operator, data, or decoded string literal
  Value value;       // Integer / Float / String / Data
  int line = 1;
  int column = 1;
};

// Newline normalisation + tokenising. A lexical error ends the stream with
// an Error token: Jinja2 lexes lazily, so a parse error earlier in the
// template wins over a lexical error later in it.
std::vector<Token> tokenize(std::string_view source);

// Python-style description of a token for error messages ("end of print statement").
std::string describe_token(const Token& t);

}  // namespace jinja
