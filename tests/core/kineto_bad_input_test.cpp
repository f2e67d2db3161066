// Bad input: each case gives an Error naming the file, the place and what was expected, or a warning when the
// rest is usable. Offsets were worked out from the files' text (python3: text.index(...)), noted per case.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/formats/kineto_json.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

std::string bad(const std::string& name) { return std::string(STROBE_TEST_DATA_DIR) + "/bad/" + name; }
std::string small(const std::string& name) { return std::string(STROBE_TEST_DATA_DIR) + "/small/" + name; }

using strobe::test::readAll;

bool containsKinetoBadInput(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

const Diagnostic* findDiag(const RankData& r, std::string_view part) {
    for (const auto& d : r.diagnostics)
        if (containsKinetoBadInput(d.message, part)) return &d;
    return nullptr;
}

}  // namespace

TEST(KinetoBadInput, EmptyFile) {
    auto r = loadKinetoTrace(bad("empty.json"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.file, bad("empty.json"));
    EXPECT_EQ(r.error().where.byteOffset, 0);
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "empty"));
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "expected"));
    EXPECT_TRUE(containsKinetoBadInput(r.error().toString(), "empty.json"));
}

TEST(KinetoBadInput, NotJsonAndBinary) {
    auto r = loadKinetoTrace(bad("not_json.txt"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.byteOffset, 0);
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "expected '{' or '['"));
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "'t'"));

    auto b = loadKinetoTrace(bad("binary.bin"));
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.error().where.file, bad("binary.bin"));
    EXPECT_EQ(b.error().where.byteOffset, 0);
    EXPECT_TRUE(containsKinetoBadInput(b.error().message, "0x00"));
}

TEST(KinetoBadInput, MissingTraceEvents) {
    auto r = loadKinetoTrace(bad("no_trace_events.json"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "traceEvents"));
    EXPECT_EQ(r.error().where.byteOffset, 43);  // the closing '}' of {"schemaVersion": 1, "deviceProperties": []}

    auto n = loadKinetoTrace(bad("trace_events_not_array.json"));
    ASSERT_FALSE(n.ok());
    EXPECT_TRUE(containsKinetoBadInput(n.error().message, "must be an array"));
    EXPECT_EQ(n.error().where.byteOffset, 36);  // the '{' after "traceEvents":
}

TEST(KinetoBadInput, WronglyTypedFieldsAreSkippedWithWarnings) {
    auto r = loadKinetoTrace(bad("wrong_types.json"));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    // good0, bad_args (kept, args ignored) and good1 survive; ts/pid/dur/ph errors and the bare 42 are skipped.
    EXPECT_EQ(d.stats.events, 3u);
    EXPECT_EQ(d.stats.skippedEvents, 5u);
    ASSERT_EQ(d.slices.size(), 3u);
    EXPECT_EQ(d.strings.view(d.slices.name[2]), "good1");
    const Diagnostic* ts = findDiag(d, "\"ts\"");
    ASSERT_NE(ts, nullptr);
    EXPECT_EQ(ts->where.eventIndex, 1);
    EXPECT_EQ(ts->where.byteOffset, 105);  // text.index('{"ph": "X", "cat": "cpu_op", "name": "bad_ts"')
    EXPECT_EQ(ts->where.file, bad("wrong_types.json"));
    EXPECT_TRUE(containsKinetoBadInput(ts->message, "expected"));
    const Diagnostic* notObject = findDiag(d, "expected an event object");
    ASSERT_NE(notObject, nullptr);
    EXPECT_EQ(notObject->where.eventIndex, 4);
    EXPECT_EQ(notObject->where.byteOffset, 384);  // text.index('42,')
    ASSERT_NE(findDiag(d, "\"pid\""), nullptr);
    EXPECT_EQ(findDiag(d, "\"pid\"")->where.eventIndex, 2);
    ASSERT_NE(findDiag(d, "\"dur\""), nullptr);
    EXPECT_EQ(findDiag(d, "\"dur\"")->where.eventIndex, 3);
    ASSERT_NE(findDiag(d, "\"args\""), nullptr);
    EXPECT_EQ(findDiag(d, "\"args\"")->where.eventIndex, 5);
    ASSERT_NE(findDiag(d, "\"ph\""), nullptr);
    EXPECT_EQ(findDiag(d, "\"ph\"")->where.eventIndex, 6);
}

TEST(KinetoBadInput, NegativeAndMissingDurAreClampedWithWarnings) {
    auto r = loadKinetoTrace(bad("negative_dur.json"));
    ASSERT_TRUE(r.ok());
    const RankData& d = **r;
    ASSERT_EQ(d.slices.size(), 3u);
    EXPECT_EQ(d.slices.dur[0], 2000);
    EXPECT_EQ(d.slices.dur[1], 0);
    EXPECT_EQ(d.slices.dur[2], 0);
    const Diagnostic* neg = findDiag(d, "negative");
    ASSERT_NE(neg, nullptr);
    EXPECT_EQ(neg->severity, Severity::Warning);
    EXPECT_EQ(neg->where.eventIndex, 1);
    EXPECT_EQ(neg->where.byteOffset, 102);  // start of the "negative" event
    EXPECT_EQ(neg->where.file, bad("negative_dur.json"));
    const Diagnostic* missing = findDiag(d, "without \"dur\"");
    ASSERT_NE(missing, nullptr);
    EXPECT_EQ(missing->where.eventIndex, 2);
}

TEST(KinetoBadInput, ManyBadEventsAreSummarisedNotListedOneByOne) {
    std::string text = "[";
    for (int i = 0; i < 1000; ++i) text += R"({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":-1},)";
    text += "]";
    auto r = loadKinetoText(text, "many.json");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)->slices.size(), 1000u);
    EXPECT_LE((*r)->diagnostics.size(), 10u);
    EXPECT_NE(findDiag(**r, "1000 X events with a negative dur"), nullptr);
    EXPECT_NE(findDiag(**r, "comma before the closing"), nullptr);  // [..., ] is tolerated
}

// Link and attribute values (ids, device, stream, dims, counts): a number or a string holding an integer is read;
// anything else, a fraction or a value out of the column's range is ignored with a warning and the event kept.
TEST(KinetoBadInput, UnusableIdsAndAttributesAreIgnoredWithWarnings) {
    const std::string text =
        R"([{"ph":"X","cat":"kernel","name":"k0","pid":0,"tid":7,"ts":1,"dur":1,"args":{"correlation":42.5,"device":70000}},)"
        R"({"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":2,"dur":1,"args":{"correlation":"0x2a","stream":-1,"grid":[1,"a",1],"block":[1,2]}},)"
        R"({"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":3,"dur":1,"args":{"External id":true,"Sequence number":null}},)"
        R"({"ph":"s","id":"flow-a","pid":1,"tid":1,"ts":4,"cat":"ac2g","name":"ac2g"},)"
        R"({"ph":"f","id":4.5,"pid":0,"tid":7,"ts":5,"cat":"ac2g","name":"ac2g","bp":"e"}])";
    auto r = loadKinetoText(text, "values.json");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    ASSERT_EQ(d.gpu.size(), 2u);  // every event kept
    ASSERT_EQ(d.slices.size(), 1u);
    ASSERT_EQ(d.flows.size(), 2u);
    EXPECT_EQ(d.stats.skippedEvents, 0u);
    // k0: neither value used; device falls back to the pid (0).
    EXPECT_EQ(d.gpu.correlation[0], kNone);
    EXPECT_EQ(d.gpu.device[0], 0);
    // k1: "0x2a" is 42; the stream falls back to the tid (7); bad dims stay 0.
    EXPECT_EQ(d.gpu.correlation[1], 42);
    EXPECT_EQ(d.gpu.stream[1], 7);
    EXPECT_EQ(d.gpu.gridX[1], 0);
    EXPECT_EQ(d.gpu.blockX[1], 0);
    EXPECT_EQ(d.slices.externalId[0], kNone);
    EXPECT_EQ(d.slices.sequence[0], kNone);
    EXPECT_GE(d.flows.id[0], 0);  // any string is a valid flow id (hashed): no warning for it
    EXPECT_EQ(d.flows.id[1], kNone);

    struct Expected {
        std::string_view key, got;
        int64_t event;
    };
    // Only the first 5 of a kind are listed per file: the first five of the eight bad values, in event order.
    const Expected listed[] = {{"\"correlation\"", "got 42.5", 0},
                               {"\"device\"", "from 0 to 32767, got 70000", 0},
                               {"\"stream\"", "got -1", 1},
                               {"\"grid\"", "got an array [1,\"a\",1]", 1},
                               {"\"block\"", "got an array [1,2]", 1}};
    for (const auto& e : listed) {
        const Diagnostic* diag = nullptr;
        for (const auto& dg : d.diagnostics)
            if (containsKinetoBadInput(dg.message, e.key) && containsKinetoBadInput(dg.message, e.got)) diag = &dg;
        ASSERT_NE(diag, nullptr) << e.key << " " << e.got;
        EXPECT_EQ(diag->severity, Severity::Warning);
        EXPECT_EQ(diag->where.eventIndex, e.event) << diag->toString();
        EXPECT_TRUE(containsKinetoBadInput(diag->message, "ignored")) << diag->toString();
    }
    EXPECT_EQ(findDiag(d, "\"External id\""), nullptr);  // the sixth and later are counted, not listed
    EXPECT_NE(findDiag(d, "8 ids or attributes with a wrong type or out of range"), nullptr);
}

TEST(KinetoBadInput, AMillionBadIdsAreCountedNotListed) {
    // 100 000 kernels, each with an unusable correlation: one summary line, not one diagnostic per event.
    std::string text = "[";
    for (int i = 0; i < 100000; ++i)
        text += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"correlation":"x"}},)";
    text.back() = ']';
    for (int threads : {1, 2}) {
        KinetoLoadOptions o;
        o.threads = threads;
        o.chunkBytes = 64 << 10;
        auto r = loadKinetoText(text, "many_ids.json", o);
        ASSERT_TRUE(r.ok()) << r.error().toString();
        EXPECT_EQ((*r)->gpu.size(), 100000u);
        // One message, repeated word for word: listed once (over both threads), plus the count.
        EXPECT_EQ((*r)->diagnostics.size(), 2u);
        EXPECT_NE(findDiag(**r, "100000 ids or attributes"), nullptr);
    }
}

TEST(KinetoBadInput, SyntaxErrorNamesEventAndOffset) {
    auto r = loadKinetoTrace(bad("syntax_error.json"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.eventIndex, 1);
    EXPECT_EQ(r.error().where.byteOffset, 82);  // text.index('{"ph": "X" "name"')
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "expected a valid JSON event object"));
}

TEST(KinetoBadInput, TruncatedKeepsCompleteEvents) {
    auto r = loadKinetoTrace(bad("truncated.json"));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    EXPECT_TRUE(d.stats.truncated);
    EXPECT_EQ(d.stats.events, 2u);  // ProfilerStep#7 and aten::mm
    const Diagnostic* w = findDiag(d, "truncated");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->where.byteOffset, 1104);  // the file's size
    EXPECT_TRUE(containsKinetoBadInput(w->message, "1104"));
    EXPECT_TRUE(containsKinetoBadInput(w->message, "kept the 2 complete events"));
    EXPECT_EQ(d.info.devices.size(), 1u);  // the keys before traceEvents are kept too
}

TEST(KinetoBadInput, TruncationAtEveryByteNeverCrashesAndIsMonotone) {
    const std::string full = readAll(small("current_schema.json"));
    ASSERT_EQ(full.size(), 4142u);
    uint64_t previous = 0;
    const size_t lastBrace = full.rfind('}');
    for (size_t n = 0; n <= full.size(); ++n) {
        KinetoLoadOptions opt;
        opt.chunkBytes = 256;  // many cuts, even in this small file
        opt.threads = (n % 2) ? 2 : 1;
        auto r = loadKinetoText(std::string_view(full).substr(0, n), "cut.json", opt);
        const uint64_t events = r.ok() ? (*r)->stats.events : 0;
        ASSERT_GE(events, previous) << "prefix " << n;
        previous = events;
        if (r.ok() && n <= lastBrace) {
            bool warned = false;
            for (const auto& d : (*r)->diagnostics) warned |= d.severity == Severity::Warning;
            ASSERT_TRUE(warned) << "prefix " << n << " loaded without a warning";
        }
        if (!r.ok()) {
            ASSERT_EQ(r.error().where.file, "cut.json");
        }
    }
    EXPECT_EQ(previous, 19u);
}

TEST(KinetoBadInput, TruncatedGzipAtEveryByteNeverCrashes) {
    const std::string gz = readAll(small("current_schema.json.gz"));
    uint64_t previous = 0;
    for (size_t n = 0; n <= gz.size(); ++n) {
        auto r = loadKinetoText(std::string_view(gz).substr(0, n), "cut.json.gz");
        const uint64_t events = r.ok() ? (*r)->stats.events : 0;
        ASSERT_GE(events, previous) << "prefix " << n;
        previous = events;
    }
    EXPECT_EQ(previous, 19u);
}

TEST(KinetoBadInput, CorruptGzipNamesBothOffsets) {
    auto r = loadKinetoTrace(bad("corrupt.json.gz"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.file, bad("corrupt.json.gz"));
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "corrupt gzip stream at compressed byte"));
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "decompressed byte"));
    // Bytes 300..339 of the compressed file were flipped: zlib notices at or after byte 300.
    EXPECT_GE(r.error().where.byteOffset, 0);
}

TEST(KinetoBadInput, TrailingGarbageAfterGzipIsAWarning) {
    auto r = loadKinetoTrace(bad("trailing_garbage.json.gz"));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ((*r)->stats.events, 19u);
    const Diagnostic* w = findDiag(**r, "after the end of the gzip stream");
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE(containsKinetoBadInput(w->message, "8 bytes"));
    EXPECT_TRUE(containsKinetoBadInput(w->message, "compressed byte 1336"));  // the size of the valid gzip stream
}

TEST(KinetoBadInput, TruncatedGzipKeepsWhatWasDecompressed) {
    auto r = loadKinetoTrace(bad("truncated.json.gz"));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_TRUE((*r)->stats.truncated);
    EXPECT_GT((*r)->stats.events, 0u);
    EXPECT_LT((*r)->stats.events, 19u);
    EXPECT_NE(findDiag(**r, "gzip stream ends early"), nullptr);
}

TEST(KinetoBadInput, DuplicateCorrelationIdsAreBothKept) {
    auto r = loadKinetoTrace(bad("duplicate_correlation.json"));
    ASSERT_TRUE(r.ok());
    ASSERT_EQ((*r)->gpu.size(), 2u);
    EXPECT_EQ((*r)->gpu.correlation[0], 5);
    EXPECT_EQ((*r)->gpu.correlation[1], 5);
}

TEST(KinetoBadInput, MissingUnreadableAndDirectory) {
    const std::string missing = bad("does_not_exist.json");
    auto r = loadKinetoTrace(missing);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.file, missing);
    EXPECT_TRUE(containsKinetoBadInput(r.error().message, "cannot open"));

    auto dir = loadKinetoTrace(std::string(STROBE_TEST_DATA_DIR) + "/bad");
    ASSERT_FALSE(dir.ok());
    EXPECT_TRUE(containsKinetoBadInput(dir.error().message, "directory"));

    // A file that disappears between listing and loading.
    const auto tmp = std::filesystem::temp_directory_path() / "strobe_kineto_vanishing.json";
    std::ofstream(tmp) << "[]";
    std::filesystem::remove(tmp);
    auto gone = loadKinetoTrace(tmp.string());
    ASSERT_FALSE(gone.ok());
    EXPECT_TRUE(containsKinetoBadInput(gone.error().toString(), "strobe_kineto_vanishing.json"));

    if (geteuid() != 0) {  // root reads anything: only meaningful for a normal user
        const auto locked = std::filesystem::temp_directory_path() / "strobe_kineto_locked.json";
        std::ofstream(locked) << "[]";
        ::chmod(locked.c_str(), 0);
        auto denied = loadKinetoTrace(locked.string());
        ASSERT_FALSE(denied.ok());
        EXPECT_TRUE(containsKinetoBadInput(denied.error().message, "cannot open"));
        std::filesystem::remove(locked);
    }
}

TEST(KinetoBadInput, HostileShapesNeverCrash) {
    // Deep nesting inside args.
    std::string deep = R"([{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":)";
    deep += std::string(5000, '[') + std::string(5000, ']') + "}}]";
    auto d = loadKinetoText(deep, "deep.json");
    if (!d.ok()) {
        EXPECT_EQ(d.error().where.eventIndex, 0);
    }

    // A huge string (larger than the chunk) with escapes.
    std::string huge = R"([{"ph":"X","cat":"cpu_op","name":")";
    for (int i = 0; i < 200000; ++i) huge += "ab\\\"";
    huge += R"(","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":2,"dur":1}])";
    KinetoLoadOptions small;
    small.chunkBytes = 4096;
    auto h = loadKinetoText(huge, "huge.json", small);
    ASSERT_TRUE(h.ok()) << h.error().toString();
    ASSERT_EQ((*h)->slices.size(), 2u);
    EXPECT_EQ((*h)->strings.view((*h)->slices.name[0]).size(), 200000u * 3);

    // NUL bytes inside and outside strings.
    std::string nul = R"([{"ph":"X","cat":"cpu_op","name":"a)";
    nul += std::string(1, '\0');
    nul += R"(b","pid":1,"tid":1,"ts":1,"dur":1},)";
    nul += std::string(3, '\0');
    nul += "]";
    auto n = loadKinetoText(nul, "nul.json");
    if (!n.ok()) {
        EXPECT_EQ(n.error().where.file, "nul.json");
    }

    // Invalid UTF-8: replaced by '?', with a warning naming the first bad byte and its event.
    std::string utf = R"([{"ph":"X","cat":"cpu_op","name":"ok","pid":1,"tid":1,"ts":1,"dur":1},)"
                      R"({"ph":"X","cat":"cpu_op","name":")"
                      "\xff\xfe"
                      R"(","pid":1,"tid":1,"ts":1,"dur":1}])";
    auto u = loadKinetoText(utf, "utf8.json");
    ASSERT_TRUE(u.ok()) << u.error().toString();
    ASSERT_EQ((*u)->slices.size(), 2u);
    EXPECT_EQ((*u)->strings.view((*u)->slices.name[1]), "??");
    const Diagnostic* bad8 = nullptr;
    for (const auto& diag : (*u)->diagnostics)
        if (diag.message.find("UTF-8") != std::string::npos) bad8 = &diag;
    ASSERT_NE(bad8, nullptr);
    EXPECT_EQ(bad8->where.byteOffset, static_cast<int64_t>(utf.find('\xff')));
    EXPECT_EQ(bad8->where.eventIndex, 1);

    // Random bytes after a valid start, at several seeds.
    uint32_t state = 12345;
    for (int round = 0; round < 50; ++round) {
        std::string text = "[";
        for (int i = 0; i < 2000; ++i) {
            state = state * 1103515245u + 12345u;
            text.push_back(static_cast<char>("{}[]\",:\\ae1 "[(state >> 16) % 12]));
        }
        auto rr = loadKinetoText(text, "random.json");
        (void)rr;
    }
    SUCCEED();
}

TEST(KinetoBadInput, CancelReturnsAnError) {
    KinetoCallbacks cb;
    cb.cancel.cancel();
    auto r = loadKinetoTrace(small("current_schema.json"), {}, cb);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "cancelled");
}

// Times beyond ±2^62 ns (±146 years) would overflow ends and differences downstream: such events are skipped
// with a warning naming the event; a trace with real epoch times (~1.7e15 µs) is untouched.
TEST(KinetoBadInput, TimesOutsideTheRepresentableRangeAreSkipped) {
    const std::string text = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "real", "pid": 0, "tid": 7, "ts": 1694128201545000, "dur": 12},
  {"ph": "X", "cat": "kernel", "name": "ends_too_late", "pid": 0, "tid": 7, "ts": 4000000000000000, "dur": 1000000000000000},
  {"ph": "X", "cat": "kernel", "name": "starts_too_early", "pid": 0, "tid": 7, "ts": -5000000000000000, "dur": 1},
  {"ph": "i", "cat": "cpu_instant_event", "name": "instant_too_late", "pid": 0, "tid": 1, "ts": 4700000000000000}
]})";
    auto r = loadKinetoText(text, "times.json");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    ASSERT_EQ(d.gpu.size(), 1u);
    EXPECT_EQ(d.gpu.ts[0], 1694128201545000000LL);
    EXPECT_EQ(d.slices.size(), 0u);
    EXPECT_EQ(d.stats.skippedEvents, 3u);
    int outside = 0;
    for (const auto& diag : d.diagnostics)
        if (containsKinetoBadInput(diag.message, "representable time range")) {
            ++outside;
            EXPECT_EQ(diag.severity, Severity::Warning);
            EXPECT_GE(diag.where.eventIndex, 1);
        }
    EXPECT_EQ(outside, 3);
}

// A duration longer than 2^46 ns (19.5 hours) is not a profiled event: skipped with a warning, so that sums of
// durations can never overflow; 19 hours is kept.
TEST(KinetoBadInput, DurationsBeyondNineteenHoursAreSkipped) {
    const std::string text = R"({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "nineteen_hours", "pid": 0, "tid": 1, "ts": 1000, "dur": 68400000000},
  {"ph": "X", "cat": "user_annotation", "name": "twenty_hours", "pid": 0, "tid": 1, "ts": 1000, "dur": 72000000000}
]})";
    auto r = loadKinetoText(text, "long.json");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    ASSERT_EQ(d.slices.size(), 1u);
    EXPECT_EQ(d.strings.view(d.slices.name[0]), "nineteen_hours");
    EXPECT_EQ(d.slices.dur[0], 68400000000000LL);
    const Diagnostic* w = findDiag(d, "19.5 hours");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->where.eventIndex, 1);
}

std::string suiteFile(const std::string& name) { return bad("suite/" + name); }

// The cap lists the first 5 *distinct* messages of a kind: a value repeated word for word is listed once, so later
// different values are not hidden behind it. many_bad_values.json: kernels at events 1-8 with correlation "alpha"
// (three times), then "bravo", "charlie", "delta", "echo", "foxtrot" (its generator is in the suite's README).
TEST(KinetoBadInput, TheFirstDistinctMessagesOfAKindAreListed) {
    for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        KinetoLoadOptions o;
        o.threads = threads;
        o.chunkBytes = 256;  // several chunks, so that both threads list some
        auto r = loadKinetoTrace(suiteFile("many_bad_values.json"), o);
        ASSERT_TRUE(r.ok()) << r.error().toString();
        const RankData& d = **r;
        EXPECT_EQ(d.gpu.size(), 8u);
        const std::pair<std::string_view, int64_t> listed[] = {
            {"\"alpha\"", 1}, {"\"bravo\"", 4}, {"\"charlie\"", 5}, {"\"delta\"", 6}, {"\"echo\"", 7}};
        for (const auto& [word, event] : listed) {
            int count = 0;
            for (const auto& dg : d.diagnostics) {
                if (!containsKinetoBadInput(dg.message, word)) continue;
                ++count;
                EXPECT_EQ(dg.where.eventIndex, event) << dg.toString();
                EXPECT_TRUE(containsKinetoBadInput(dg.message, "expected \"correlation\" to be a non-negative integer"))
                    << dg.message;
            }
            EXPECT_EQ(count, 1) << word;
        }
        EXPECT_EQ(findDiag(d, "foxtrot"), nullptr);
        EXPECT_NE(findDiag(d, "8 ids or attributes with a wrong type or out of range (ignored, events kept) in all "
                              "(the first 5 distinct messages are listed)"),
                  nullptr);
        EXPECT_EQ(d.diagnostics.size(), 6u);
    }
}

// Metadata args of the wrong type: a warning naming the metadata event, the key and what was found, "ignored"; the
// name set by an earlier event stays. wrong_type_metadata.json: events 0-5 are metadata, event 0 the good name.
TEST(KinetoBadInput, MetadataOfTheWrongTypeIsIgnoredWithWarnings) {
    auto r = loadKinetoTrace(suiteFile("wrong_type_metadata.json"));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    EXPECT_EQ(d.slices.size(), 2u);
    ASSERT_EQ(d.processes.size(), 1u);
    EXPECT_EQ(d.strings.view(d.processes[0].name), "python");
    EXPECT_EQ(d.processes[0].labels, kEmptyStr);
    EXPECT_EQ(d.processes[0].sortIndex, INT32_MIN);
    ASSERT_EQ(d.threads.size(), 1u);
    EXPECT_EQ(d.threads[0].name, kEmptyStr);
    EXPECT_EQ(d.threads[0].sortIndex, INT32_MIN);
    const std::pair<std::string_view, int64_t> expected[] = {
        {"\"process_name\" metadata: expected \"name\" to be a string, got 5: ignored", 1},
        {"\"process_labels\" metadata: expected \"labels\" to be a string, got an array [\"CPU\"]: ignored", 2},
        {"\"process_sort_index\" metadata: expected \"sort_index\" to be an integer from -2147483648 to 2147483647, "
         "got a string \"first\": ignored",
         3},
        {"\"thread_name\" metadata: expected \"name\" to be a string, got an object {\"text\":\"main\"}: ignored", 4},
        {"\"thread_sort_index\" metadata: expected \"sort_index\" to be an integer from -2147483648 to 2147483647, "
         "got 1.5: ignored",
         5}};
    for (const auto& [text, event] : expected) {
        const Diagnostic* diag = findDiag(d, text);
        ASSERT_NE(diag, nullptr) << text;
        EXPECT_EQ(diag->severity, Severity::Warning);
        EXPECT_EQ(diag->where.eventIndex, event);
        EXPECT_GE(diag->where.byteOffset, 0);
    }
}

// Counter values: a number, or a string holding one, makes a row; anything else a warning naming the counter, the
// series and what was found. wrong_type_counter.json: event 2 is "memory" with allocated 1024, reserved "lots",
// cached [1] and free "2048".
TEST(KinetoBadInput, CounterValuesOfTheWrongTypeAreIgnoredWithWarnings) {
    auto r = loadKinetoTrace(suiteFile("wrong_type_counter.json"));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    ASSERT_EQ(d.counters.size(), 2u);
    EXPECT_EQ(d.strings.view(d.counters.series[0]), "allocated");
    EXPECT_EQ(d.counters.value[0], 1024.0);
    EXPECT_EQ(d.strings.view(d.counters.series[1]), "free");
    EXPECT_EQ(d.counters.value[1], 2048.0);
    for (std::string_view text :
         {"counter \"memory\": expected \"reserved\" to be a number, got a string \"lots\": ignored",
          "counter \"memory\": expected \"cached\" to be a number, got an array [1]: ignored"}) {
        const Diagnostic* diag = findDiag(d, text);
        ASSERT_NE(diag, nullptr) << text;
        EXPECT_EQ(diag->where.eventIndex, 2);
    }
}
