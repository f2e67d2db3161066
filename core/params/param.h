#pragma once
// Typed parameter handles: a plot, an analysis or a tool declares each parameter once, as a constant, and reads
// it through that constant. The key, the type and the default live in one place; a misspelled handle is a
// compile error, and the value read has the C++ type of the parameter.
//
//     const IntParam kTopN = IntParam{"top_n", "Top N kernels", "How many kernels get their own colour", 10}
//                                .bounded(1, 50, 1);
//     const BoolParam kPercent = BoolParam{"percent", "Percent", "Show shares", false}.drawOnly();
//     std::vector<ParamSpec> parameters(...) const { return {kTopN.spec(), kPercent.spec()}; }
//     long long n = kTopN(values);                    // the value (values are resolved: every key present)
//
// Data-dependent choices (ranks, steps of the loaded runs): kRanks.spec(rankChoices(runs)).

#include <string>
#include <utility>
#include <vector>

#include "core/params/param_spec.h"

namespace strobe::core {

// The C++ type a ParamType reads as, and how it is stored in a ParamValue.
template <ParamType K>
struct ParamTraits;
template <>
struct ParamTraits<ParamType::Bool> {
    using Value = bool;
    static ParamValue store(bool v) { return v; }
};
template <>
struct ParamTraits<ParamType::Int> {
    using Value = long long;
    static ParamValue store(long long v) { return v; }
};
template <>
struct ParamTraits<ParamType::Duration> {
    using Value = long long;  // nanoseconds
    static ParamValue store(long long v) { return v; }
};
template <>
struct ParamTraits<ParamType::Double> {
    using Value = double;
    static ParamValue store(double v) { return v; }
};
template <ParamType K>
struct TextParamTraits {
    using Value = std::string;
    static ParamValue store(std::string v) { return v; }
};
template <>
struct ParamTraits<ParamType::Enum> : TextParamTraits<ParamType::Enum> {};
template <>
struct ParamTraits<ParamType::String> : TextParamTraits<ParamType::String> {};
template <>
struct ParamTraits<ParamType::Regex> : TextParamTraits<ParamType::Regex> {};
template <>
struct ParamTraits<ParamType::Color> : TextParamTraits<ParamType::Color> {};
template <>
struct ParamTraits<ParamType::Path> : TextParamTraits<ParamType::Path> {};
template <>
struct ParamTraits<ParamType::StringList> {
    using Value = std::vector<std::string>;
    static ParamValue store(std::vector<std::string> v) { return v; }
};
template <>
struct ParamTraits<ParamType::KeyValueList> {
    using Value = std::vector<std::string>;  // "key=value" items
    static ParamValue store(std::vector<std::string> v) { return v; }
};
// A RankSet reads as rank numbers (sorted, unique; empty = all ranks) and is stored as their text.
template <>
struct ParamTraits<ParamType::RankSet> {
    using Value = std::vector<int>;
    static ParamValue store(const std::vector<int>& v) {
        std::vector<std::string> out;
        for (int r : v) out.push_back(std::to_string(r));
        return out;
    }
};

template <ParamType K>
class Param {
public:
    using Value = typename ParamTraits<K>::Value;

    Param(std::string key, std::string label, std::string tooltip, Value defaultValue) {
        m_spec.key = std::move(key);
        m_spec.label = std::move(label);
        m_spec.tooltip = std::move(tooltip);
        m_spec.type = K;
        m_spec.defaultValue = ParamTraits<K>::store(std::move(defaultValue));
    }

    // Declaration modifiers (each returns a modified copy): bounds and step of Int/Double/Duration, Enum
    // choices, a drawing parameter (never re-runs prepare()), a display unit.
    Param bounded(double min, double max, double step) const {
        Param p = *this;
        p.m_spec.min = min, p.m_spec.max = max, p.m_spec.step = step;
        return p;
    }
    Param choices(std::vector<std::string> c) const {
        Param p = *this;
        p.m_spec.choices = std::move(c);
        return p;
    }
    Param drawOnly() const {
        Param p = *this;
        p.m_spec.affectsPrepare = false;
        return p;
    }
    // A key or an Enum choice this parameter had before (see ParamSpec::formerKeys).
    Param formerKey(std::string k) const {
        Param p = *this;
        p.m_spec.formerKeys.push_back(std::move(k));
        return p;
    }
    Param formerChoice(std::string former, std::string current) const
        requires(K == ParamType::Enum)
    {
        Param p = *this;
        p.m_spec.formerChoices.emplace_back(std::move(former), std::move(current));
        return p;
    }
    Param unit(std::string u) const {
        Param p = *this;
        p.m_spec.unit = std::move(u);
        return p;
    }

    const std::string& key() const { return m_spec.key; }
    const ParamSpec& spec() const { return m_spec; }
    // The spec with choices from the data (StringList steps, RankSet ranks, an Enum of the data's counters or
    // configurations: such an Enum is marked choicesFromData, so a value is checked against them once loaded).
    ParamSpec spec(std::vector<std::string> choices) const {
        ParamSpec s = m_spec;
        s.choices = std::move(choices);
        s.choicesFromData = K == ParamType::Enum;
        return s;
    }
    // A StringList whose choices and default both come from the data (the telemetry metrics the loaded runs hold):
    // marked choicesFromData, so that a value keeps only the items the data offers (coerceValue) and an item the
    // data lacks is never offered ticked; before any data is loaded it takes any items (specsBeforeData).
    ParamSpec specFromData(std::vector<std::string> choices, std::vector<std::string> defaults) const
        requires(K == ParamType::StringList)
    {
        ParamSpec s = m_spec;
        s.choices = std::move(choices);
        s.defaultValue = std::move(defaults);
        s.choicesFromData = true;
        return s;
    }
    // The same parameter with another default (one plot's window defaults to "all", another's to "auto").
    Param withDefault(Value v) const {
        Param p = *this;
        p.m_spec.defaultValue = ParamTraits<K>::store(std::move(v));
        return p;
    }

    // The value in `values` (resolved values hold every key); the default when absent.
    Value get(const ParamValues& values) const {
        auto it = values.find(m_spec.key);
        return read(it != values.end() ? it->second : m_spec.defaultValue);
    }
    Value operator()(const ParamValues& values) const { return get(values); }
    Value defaultValue() const { return read(m_spec.defaultValue); }
    void set(ParamValues& values, Value v) const { values[m_spec.key] = ParamTraits<K>::store(std::move(v)); }

private:
    Value read(const ParamValue& v) const {
        if constexpr (K == ParamType::RankSet) {
            return ranksOf(v);
        } else {
            if (const auto* x = std::get_if<Value>(&v)) return *x;
            // Resolved values always hold the spec's alternative; anything else reads as the default.
            if (const auto* d = std::get_if<Value>(&m_spec.defaultValue)) return *d;
            return Value{};
        }
    }

    ParamSpec m_spec;
};

using BoolParam = Param<ParamType::Bool>;
using IntParam = Param<ParamType::Int>;
using DoubleParam = Param<ParamType::Double>;
using DurationParam = Param<ParamType::Duration>;
using EnumParam = Param<ParamType::Enum>;
using StringParam = Param<ParamType::String>;
using RegexParam = Param<ParamType::Regex>;
using ColorParam = Param<ParamType::Color>;
using PathParam = Param<ParamType::Path>;
using StringListParam = Param<ParamType::StringList>;
using RankSetParam = Param<ParamType::RankSet>;
using KeyValueListParam = Param<ParamType::KeyValueList>;

}  // namespace strobe::core
