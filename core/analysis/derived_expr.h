#pragma once
// A small, safe arithmetic expression for derived metrics: numbers, names (counters such as SQ_INSTS_VALU, ncu
// metrics such as sm__cycles_elapsed.avg, constants such as arch.peak_tflops.fp16_bf16_matrix), + - * /, unary
// minus, parentheses and min(a, b, ...)/max(a, b, ...). No other functions, no assignment, no loops: evaluation
// is one pass over a postfix program. Errors name the file, line and the offending token.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"

namespace strobe::core {

class DerivedExpression {
public:
    // `where` names the file and line the text came from; errors add the column and the bad token.
    static Result<DerivedExpression> parse(std::string_view text, const Location& where);

    // Value of a name, or nullopt when it is unknown for this kernel (the metric is then not available).
    using Lookup = std::function<std::optional<double>(std::string_view)>;
    // nullopt when a name has no value; an Error for division by zero (naming the file, line and divisor text).
    Result<std::optional<double>> evaluate(const Lookup& lookup) const;

    const std::vector<std::string>& names() const { return m_names; }  // distinct names used, in order of use
    const std::string& text() const { return m_text; }

private:
    enum class Op : unsigned char { Number, Name, Neg, Add, Sub, Mul, Div, Min, Max };
    struct Instr {
        Op op;
        double number = 0;   // Number
        int index = 0;       // Name: index into m_names; Min/Max: argument count; Div: offset of the '/'
    };
    friend class DerivedExpressionParser;
    std::string m_text;
    Location m_where;
    std::vector<std::string> m_names;
    std::vector<Instr> m_program;
};

}  // namespace strobe::core
