#pragma once
// A real PostgreSQL 15 server for the sink.postgres tests (Debian's `postgresql` package):
// initdb into a temp folder, started with pg_ctl on a unix socket in that folder and on
// 127.0.0.1 at a free port, stopped and removed at the end. initdb refuses to run as root, so
// when the tests run as root the server runs as `nobody` (setpriv). Clients (the sink, psql)
// connect over TCP with a password (scram-sha-256), which the tests pass only through the
// environment variable TL_PG_PASSWORD, as ${env:TL_PG_PASSWORD}.

#include <QtCore/QProcess>
#include <QtCore/QString>

#include <cstdlib>
#include <filesystem>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tideline::pgtest {

inline const char *kBin = "/usr/lib/postgresql/15/bin";
inline const char *kPassword = "Tl-pw-9f3c1e77-marker";

/// "" when the server can be started here, else why not (for QSKIP).
inline std::string unavailable()
{
    namespace fs = std::filesystem;
    if (!fs::exists(std::string(kBin) + "/initdb") || !fs::exists(std::string(kBin) + "/pg_ctl"))
        return std::string("PostgreSQL 15 server binaries are missing (") + kBin
               + "): install the Debian package `postgresql` (scripts/install-deps.sh)";
    if (::geteuid() == 0 && !fs::exists("/usr/bin/setpriv"))
        return "running as root and setpriv (util-linux) is missing to start the server as nobody";
    return {};
}

inline int freePort()
{
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

class Server
{
public:
    Server() = default;
    ~Server() { stop(); }
    Server(const Server &) = delete;
    Server &operator=(const Server &) = delete;

    /// Creates and starts the server, a role `tideline` with kPassword and a database
    /// `tideline`; "" on success.
    std::string start()
    {
        ::setenv("TL_PG_PASSWORD", kPassword, 1);
        std::string tmpl = "/tmp/tideline-pg-XXXXXX";
        m_dir = ::mkdtemp(tmpl.data());
        if (::geteuid() == 0) {
            // nobody must own the folder; /tmp itself is world-traversable.
            if (std::system(("chown nobody:nogroup " + m_dir).c_str()) != 0)
                return "chown failed";
        }
        ::chmod(m_dir.c_str(), 0700);
        QString out;
        if (!asServer({QString(kBin) + "/initdb", "-D", data(), "-U", "postgres", "-A", "trust",
                       "--no-sync", "-E", "UTF8", "--locale=C"},
                      out))
            return "initdb failed: " + out.toStdString();
        // Unix socket: trust (the fixture's psql); TCP: password only.
        std::string hba = "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n";
        if (std::FILE *f = std::fopen((m_dir + "/data/pg_hba.conf").c_str(), "w")) {
            std::fputs(hba.c_str(), f);
            std::fclose(f);
        }
        m_port = freePort();
        if (std::string e = pgctl("start"); !e.empty())
            return e;
        std::string err;
        psql("CREATE ROLE tideline LOGIN PASSWORD '" + std::string(kPassword) + "'", err,
             "postgres");
        psql("CREATE DATABASE tideline OWNER tideline", err, "postgres");
        return err;
    }

    std::string restart() { return pgctl("restart"); }
    std::string stopServer() { return pgctl("stop"); }
    std::string startServer() { return pgctl("start"); }

    void stop()
    {
        if (m_dir.empty())
            return;
        QString out;
        asServer({QString(kBin) + "/pg_ctl", "-D", data(), "-m", "immediate", "-w", "stop"}, out);
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
        m_dir.clear();
    }

    int port() const { return m_port; }
    /// What a pipeline puts in `conninfo`: the password only as a reference.
    std::string conninfo() const
    {
        return "host=127.0.0.1 port=" + std::to_string(m_port)
               + " dbname=tideline user=tideline password=${env:TL_PG_PASSWORD} connect_timeout=5";
    }

    /// Runs SQL through psql on the unix socket; rows as lines, columns separated by '|'.
    std::string psql(const std::string &sql, std::string &error, const char *db = "tideline") const
    {
        QProcess p;
        p.start(QString(kBin) + "/psql",
                {"-h", QString::fromStdString(m_dir), "-p", QString::number(m_port), "-U",
                 QString(std::string(db) == "postgres" ? "postgres" : "tideline"), "-d", db, "-X",
                 "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-c", QString::fromStdString(sql)});
        p.waitForFinished(60000);
        std::string out = p.readAllStandardOutput().toStdString();
        if (p.exitCode() != 0)
            error = "psql: " + p.readAllStandardError().toStdString() + " (" + sql + ")";
        return out;
    }
    /// psql that must succeed (the fixture's own statements): returns the output.
    std::string sql(const std::string &sql) const
    {
        std::string err;
        std::string out = psql(sql, err);
        if (!err.empty())
            qFatal("%s", err.c_str());
        return out;
    }

private:
    QString data() const { return QString::fromStdString(m_dir + "/data"); }

    std::string pgctl(const char *what)
    {
        QString out;
        QStringList args = {QString(kBin) + "/pg_ctl",
                            "-D",
                            data(),
                            "-l",
                            QString::fromStdString(m_dir + "/server.log"),
                            "-w",
                            "-t",
                            "60"};
        if (std::string(what) != "stop")
            args += {"-o", QString("-p %1 -k %2 -c listen_addresses=127.0.0.1 -c fsync=off "
                                   "-c max_connections=40")
                               .arg(m_port)
                               .arg(QString::fromStdString(m_dir))};
        if (std::string(what) != "start")
            args += {"-m", "fast"};
        args += what;
        if (!asServer(args, out))
            return std::string("pg_ctl ") + what + " failed: " + out.toStdString();
        return {};
    }

    bool asServer(QStringList args, QString &out) const
    {
        QProcess p;
        QString program = args.takeFirst();
        if (::geteuid() == 0) {
            args = QStringList{"--reuid=nobody", "--regid=nogroup", "--clear-groups", program}
                   + args;
            program = "/usr/bin/setpriv";
        }
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.setWorkingDirectory("/tmp");
        p.start(program, args);
        p.waitForFinished(120000);
        out = p.readAll();
        return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    }

    std::string m_dir;
    int m_port = 0;
};

} // namespace tideline::pgtest
