// strobe-csv-floor: the raw floor of reading a CSV file, for bench/readers_floor.py (issue 20, "Readers at their
// floor"). One mmap'd byte loop over the whole file that tracks quotes (RFC 4180: "" inside quotes is a quote, a
// delimiter or line end inside quotes is text) and sums the digits of every field, storing nothing. Strobe's CSV
// readers are measured against this: what is left above it is the cost of building columns, not of reading bytes.
//
//   strobe-csv-floor FILE.csv
//
// Prints "<seconds> <bytes> <fields> <records> <digit-sum>" (seconds: mmap to the end of the loop).

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE.csv\n", argv[0]);
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const int fd = ::open(argv[1], O_RDONLY);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
        std::fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
        return 1;
    }
    const size_t n = static_cast<size_t>(st.st_size);
    const unsigned char* p = nullptr;
    if (n > 0) {
        void* m = ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            std::fprintf(stderr, "%s: cannot map %s\n", argv[0], argv[1]);
            return 1;
        }
        p = static_cast<const unsigned char*>(m);
    }
    uint64_t sum = 0, field = 0, fields = 0, records = 0;
    bool quoted = false;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = p[i];
        if (c == '"') {
            quoted = !quoted;  // "" inside quotes toggles twice: one literal quote, still quoted
        } else if (!quoted && (c == ',' || c == '\n')) {
            sum += field;
            field = 0;
            ++fields;
            records += c == '\n';
        } else if (static_cast<unsigned>(c - '0') < 10u) {
            field = field * 10 + (c - '0');
        }
    }
    if (field) {
        sum += field;
        ++fields;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.6f %zu %llu %llu %llu\n", seconds, n, static_cast<unsigned long long>(fields),
                static_cast<unsigned long long>(records), static_cast<unsigned long long>(sum));
    return 0;
}
