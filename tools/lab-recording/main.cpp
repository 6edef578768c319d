// tideline-lab-recording PIPELINE DIR: writes the input files of PIPELINE's `source.file` nodes
// as a recording folder DIR (engine/include/tideline/engine/recording.hpp), so a lab ships its
// input both as files (what the pipeline reads) and as a recording (what `--replay` will read).
//
// What this is honest about: nothing was captured. Each record is a non-blank line of the
// file, in file order, its value the line's bytes exactly; `at_ms` is 0 for every record (a
// bounded file is read flat out, there are no processing-time gaps to replay); a file has no
// partition, offset, timestamp, key or headers, so they are absent; `started_ms` is 0 (the
// folder is reproducible byte for byte). The order across several file sources is not known
// without running the pipeline, so a pipeline with more than one source is refused rather
// than given an invented interleaving. Only `source.file` with format jsonl is converted: a
// CSV line means nothing without its header, and other sources are not files.
//
// The manifest's pipeline SHA-256 is computed here (FIPS 180-4, below): the engine has no hash
// of its own yet, and tools/ is built before Qt is found (and without it in runner-only).

#include <tideline/engine/recording.hpp>
#include <tideline/engine/spec.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

using namespace tideline;
namespace fs = std::filesystem;

namespace {

int fail(const std::string &message)
{
    std::cerr << "tideline-lab-recording: " << message << "\n";
    return 1;
}

bool readAll(const fs::path &path, std::string &out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::ostringstream s;
    s << in.rdbuf();
    out = s.str();
    return true;
}

std::string sha256Hex(std::string_view data)
{
    static constexpr std::array<std::uint32_t, 64> k
        = {0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
           0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
           0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
           0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
           0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
           0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
           0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
           0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
           0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
           0xc67178f2};
    std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::string msg(data);
    const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
    msg.push_back(static_cast<char>(0x80));
    while (msg.size() % 64 != 56)
        msg.push_back('\0');
    for (int i = 7; i >= 0; --i)
        msg.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
    auto rotr = [](std::uint32_t x, int n) {
        return (x >> n) | (x << (32 - n));
    };
    for (std::size_t off = 0; off < msg.size(); off += 64) {
        std::array<std::uint32_t, 64> w{};
        for (int i = 0; i < 16; ++i)
            for (int b = 0; b < 4; ++b)
                w[i] = (w[i] << 8) | static_cast<unsigned char>(msg[off + 4 * i + b]);
        for (int i = 16; i < 64; ++i) {
            const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        std::array<std::uint32_t, 8> v = h;
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
            const std::uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
            const std::uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
            const std::uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
            const std::uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            v = {t1 + s0 + maj, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
        }
        for (int i = 0; i < 8; ++i)
            h[i] += v[i];
    }
    std::string hex;
    char buf[9];
    for (std::uint32_t x : h) {
        std::snprintf(buf, sizeof buf, "%08x", x);
        hex += buf;
    }
    return hex;
}

bool blank(std::string_view line)
{
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::cerr << "usage: tideline-lab-recording PIPELINE.json DIR\n"
                     "Writes the pipeline's source.file input (jsonl) as a recording in DIR "
                     "(which must not exist).\n";
        return 2;
    }
    const fs::path pipelinePath = argv[1];
    const std::string dir = argv[2];
    std::string text;
    if (!readAll(pipelinePath, text))
        return fail("cannot read " + pipelinePath.string());
    auto loaded = loadSpec(text);
    if (!loaded.ok())
        return fail(pipelinePath.string() + " does not load");

    const NodeSpec *source = nullptr;
    for (const auto &n : loaded.spec->nodes) {
        if (n.kind.rfind("source.", 0) != 0)
            continue;
        if (n.kind != "source.file")
            return fail("source `" + n.id + "` is " + n.kind + ": only source.file inputs convert");
        if (source)
            return fail("more than one source (`" + source->id + "`, `" + n.id
                        + "`): their arrival order is not known without a run");
        if (n.params.value("format", std::string("jsonl")) != "jsonl")
            return fail("source `" + n.id
                        + "` reads CSV: a CSV line means nothing without "
                          "its header");
        source = &n;
    }
    if (!source)
        return fail(pipelinePath.string() + " has no source.file node");
    const fs::path input = pipelinePath.parent_path() / source->params.value("path", std::string());
    std::string data;
    if (!readAll(input, data))
        return fail("cannot read " + input.string() + " (source `" + source->id + "`)");

    recording::Manifest m;
    m.pipeline = loaded.spec->name;
    m.pipelineSha256 = sha256Hex(text);
    m.startedAtMs = 0;
    m.sources.push_back({source->id, source->kind, 1, 0});
    std::string error;
    auto writer = recording::Writer::create(dir, m, {}, error);
    if (!writer)
        return fail(error);
    std::size_t at = 0;
    while (at < data.size()) {
        std::size_t end = data.find('\n', at);
        if (end == std::string::npos)
            end = data.size();
        const std::string_view line(data.data() + at, end - at);
        at = end + 1;
        if (blank(line))
            continue; // the file source skips blank lines: they are no records
        recording::Entry e;
        e.source = 0;
        e.value = std::string(line);
        if (!writer->add(e))
            return fail("stopped writing " + dir + ": " + writer->stoppedBy());
    }
    if (std::string e = writer->finish("end of input"); !e.empty())
        return fail(e);
    std::cout << dir << ": " << writer->manifest().records << " records of " << input.string()
              << "\n";
    return 0;
}
