// The packages as a user gets them: cpack builds tideline-runner (and tideline when the
// designer is built) plus the tarball from this build; we check their files and declared
// dependencies, `apt-get install` them, run tideline-run --version and an installed example
// from a copy of its installed folder, then purge them and check that every file is gone.

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

namespace {

struct Proc
{
    int code = -1;
    QString out, err;
};

Proc run(const QString &program,
         const QStringList &args,
         int timeoutMs = 120000,
         const QString &cwd = {})
{
    QProcess p;
    if (!cwd.isEmpty())
        p.setWorkingDirectory(cwd);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("DEBIAN_FRONTEND", "noninteractive");
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-2, {}, program + " timed out"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

/// Purges whichever of our packages are installed (apt refuses a name it does not know).
Proc purgeOurs();

QString describe(const Proc &p)
{
    return "exit " + QString::number(p.code) + "\n" + p.out + p.err;
}

/// Paths (without the leading ".") of the regular files in a .deb.
QStringList debFiles(const QString &deb)
{
    Proc c = run("dpkg-deb", {"-c", deb});
    QStringList files;
    for (const QString &line : c.out.split('\n', Qt::SkipEmptyParts)) {
        if (!line.startsWith('-'))
            continue; // directories and links
        QString path = line.section(' ', -1);
        if (path.startsWith("./"))
            files << path.mid(1);
    }
    return files;
}

QString debField(const QString &deb, const QString &field)
{
    return run("dpkg-deb", {"-f", deb, field}).out.trimmed();
}

bool installed(const QString &package)
{
    Proc p = run("dpkg-query", {"-W", "-f=${Status}", package});
    return p.code == 0 && p.out.contains("install ok installed");
}

Proc purgeOurs()
{
    QStringList args{"remove", "-y", "--purge"};
    for (const char *pkg : {"tideline", "tideline-runner"})
        if (run("dpkg-query", {"-W", "-f=${Status}", pkg}).out.contains(" installed"))
            args << pkg;
    if (args.size() == 3)
        return {0, {}, {}};
    return run("apt-get", args, 240000);
}

} // namespace

class TestPackaging : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_runnerDeb, m_designerDeb, m_tarball;
    QStringList m_runnerFiles, m_designerFiles;

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("packaging test installs packages: run as root (CI does)");
        for (const char *tool : {"apt-get", "dpkg", "dpkg-deb", "cpack"})
            if (QStandardPaths::findExecutable(tool).isEmpty())
                QSKIP(qPrintable(
                    QString("packaging test needs %1 (Debian/Ubuntu with CMake)").arg(tool)));
        QVERIFY(m_dir.isValid());
        // cpack from this build's own configuration (its binaries, its components) into a
        // temp folder, so the build tree is left as it was.
        Proc c = run("cpack",
                     {"--config", TIDELINE_BINARY_DIR "/CPackConfig.cmake", "-B", m_dir.path(),
                      "-G", "DEB;TGZ"},
                     240000, m_dir.path());
        QVERIFY2(c.code == 0, qPrintable(describe(c)));
        QDir d(m_dir.path());
        auto debs = d.entryList({"*.deb"}, QDir::Files);
        for (const QString &f : debs) {
            if (f.startsWith("tideline-runner_"))
                m_runnerDeb = d.filePath(f);
            else if (f.startsWith("tideline_"))
                m_designerDeb = d.filePath(f);
        }
        auto tars = d.entryList({"*.tar.gz"}, QDir::Files);
        if (!tars.isEmpty())
            m_tarball = d.filePath(tars.first());
        QVERIFY2(!m_runnerDeb.isEmpty(), qPrintable(debs.join(", ")));
        QVERIFY2(QFileInfo(m_runnerDeb)
                     .fileName()
                     .startsWith("tideline-runner_" TIDELINE_VERSION_STRING "_"),
                 qPrintable(m_runnerDeb));
        if (TIDELINE_GUI_BUILT)
            QVERIFY2(!m_designerDeb.isEmpty(), qPrintable(debs.join(", ")));
        m_runnerFiles = debFiles(m_runnerDeb);
        if (!m_designerDeb.isEmpty())
            m_designerFiles = debFiles(m_designerDeb);
    }

    void runnerPackageContents()
    {
        for (const char *f :
             {"/usr/bin/tideline-run", "/usr/share/man/man1/tideline-run.1.gz",
              "/usr/lib/systemd/system/tideline-run@.service",
              "/usr/lib/systemd/system/tideline-run-member@.service",
              "/usr/libexec/tideline/tideline-run-member", "/usr/lib/sysusers.d/tideline.conf",
              "/usr/lib/tmpfiles.d/tideline.conf",
              "/usr/share/tideline/pipelines/clicks-per-user/pipeline.json",
              "/usr/share/tideline/pipelines/clicks-per-user/clicks.jsonl"})
            QVERIFY2(m_runnerFiles.contains(f), f);
        QVERIFY(!m_runnerFiles.contains("/usr/bin/tideline"));
        for (const QString &f : m_runnerFiles) {
            QVERIFY2(!f.contains("/out/"), qPrintable(f)); // no outputs of local runs
            QVERIFY2(!f.contains("/checkpoints/"), qPrintable(f));
        }
        QCOMPARE(debField(m_runnerDeb, "Package"), QString("tideline-runner"));
        QCOMPARE(debField(m_runnerDeb, "Version"), QString(TIDELINE_VERSION_STRING));
        // Dependencies are exactly the binary's shared libraries (dpkg-shlibdeps), never Qt:
        // every NEEDED library's package is declared, and nothing else is (but passwd, for
        // useradd in postinst). RocksDB is linked statically, its compressors are not.
        const QString depends = debField(m_runnerDeb, "Depends");
        QVERIFY2(!depends.contains("qt", Qt::CaseInsensitive), qPrintable(depends));
        QSet<QString> declared;
        for (const QString &d : depends.split(',', Qt::SkipEmptyParts))
            declared << d.trimmed().section(' ', 0, 0);
        QTemporaryDir x;
        QCOMPARE(run("dpkg-deb", {"-x", m_runnerDeb, x.path()}).code, 0);
        Proc elf = run("readelf", {"-d", x.path() + "/usr/bin/tideline-run"});
        QVERIFY2(elf.code == 0, qPrintable(describe(elf)));
        static const QRegularExpression neededRe("\\(NEEDED\\)\\s+Shared library: \\[([^\\]]+)\\]");
        QSet<QString> providers;
        int needed = 0;
        for (auto it = neededRe.globalMatch(elf.out); it.hasNext();) {
            const QString soname = it.next().captured(1);
            ++needed;
            QVERIFY2(!soname.contains("Qt", Qt::CaseInsensitive), qPrintable(soname));
            Proc owner = run("dpkg", {"-S", "*/" + soname});
            QVERIFY2(owner.code == 0, qPrintable(soname + ": " + describe(owner)));
            bool covered = false;
            for (const QString &line : owner.out.split('\n', Qt::SkipEmptyParts)) {
                const QString pkg = line.section(':', 0, 0).trimmed();
                providers << pkg;
                covered |= declared.contains(pkg);
            }
            QVERIFY2(covered, qPrintable(soname + " (" + owner.out.trimmed()
                                         + ") is not in Depends: " + depends));
        }
        QVERIFY(needed >= 3);
        for (const QString &d : declared)
            QVERIFY2(d == "passwd" || providers.contains(d),
                     qPrintable(d + " is declared but not needed"));
        QVERIFY(declared.contains("librdkafka1") && declared.contains("libc6"));
        // Maintainer scripts create the account; the man page renders.
        Proc ctl = run("dpkg-deb", {"-I", m_runnerDeb});
        QVERIFY2(ctl.out.contains("postinst") && ctl.out.contains("postrm"), qPrintable(ctl.out));
        if (!QStandardPaths::findExecutable("man").isEmpty()) {
            Proc man = run("man", {"-l", x.path() + "/usr/share/man/man1/tideline-run.1.gz"});
            QVERIFY2(man.code == 0 && man.out.contains("--metrics-listen"),
                     qPrintable(describe(man)));
        }
    }

    void designerPackageContents()
    {
        if (m_designerDeb.isEmpty())
            QSKIP("the designer is not built here (TIDELINE_BUILD_GUI=OFF): runner package only");
        for (const char *f :
             {"/usr/bin/tideline", "/usr/share/applications/org.tideline.Tideline.desktop",
              "/usr/share/icons/hicolor/scalable/apps/tideline.svg",
              "/usr/share/mime/packages/tideline.xml",
              "/usr/share/metainfo/org.tideline.Tideline.metainfo.xml"})
            QVERIFY2(m_designerFiles.contains(f), f);
        for (const QString &f : m_designerFiles) // the examples ship once, in tideline-runner
            QVERIFY2(!m_runnerFiles.contains(f), qPrintable(f));
        const QString depends = debField(m_designerDeb, "Depends");
        QVERIFY2(depends.contains("tideline-runner (= " TIDELINE_VERSION_STRING ")"),
                 qPrintable(depends));
        QVERIFY2(depends.contains("libqt6widgets6") && depends.contains("qt6-qpa-plugins"),
                 qPrintable(depends));
    }

    void tarballContents()
    {
        QVERIFY2(!m_tarball.isEmpty(), "cpack made no .tar.gz");
        Proc t = run("tar", {"tzf", m_tarball});
        QCOMPARE(t.code, 0);
        for (const char *f : {"/bin/tideline-run", "/share/man/man1/tideline-run.1.gz",
                              "/share/tideline/pipelines/clicks-per-user/pipeline.json",
                              "/lib/systemd/system/tideline-run@.service"})
            QVERIFY2(t.out.contains(f), f);
    }

    void installRunAndPurge()
    {
        // A leftover from an interrupted earlier run would hide what this install does.
        purgeOurs();
        QStringList debs{m_runnerDeb};
        if (!m_designerDeb.isEmpty())
            debs << m_designerDeb;
        Proc inst = run("apt-get", QStringList{"install", "-y", "--no-install-recommends"} + debs,
                        240000);
        QVERIFY2(inst.code == 0, qPrintable(describe(inst)));
        QVERIFY(installed("tideline-runner"));

        Proc v = run("/usr/bin/tideline-run", {"--version"});
        QCOMPARE(v.code, 0);
        QVERIFY2(v.out.startsWith("tideline-run " TIDELINE_VERSION_STRING), qPrintable(v.out));

        // An installed example, from a copy (it writes its outputs next to itself).
        QTemporaryDir work;
        const QString src = "/usr/share/tideline/pipelines/clicks-per-user";
        QVERIFY(QFileInfo::exists(src + "/pipeline.json"));
        Proc cp = run("cp", {"-r", src, work.path() + "/clicks"});
        QCOMPARE(cp.code, 0);
        Proc ex = run("/usr/bin/tideline-run", {work.path() + "/clicks/pipeline.json"});
        QVERIFY2(ex.code == 0, qPrintable(describe(ex)));
        QFile out(work.path() + "/clicks/out/clicks-per-user.jsonl");
        QVERIFY(out.open(QIODevice::ReadOnly));
        QVERIFY(out.readAll().count('\n') > 0);
        // The installed copy stays untouched.
        QVERIFY(!QFileInfo::exists(src + "/out"));

        // The service account and state folder from postinst, and the unit as the service
        // would run it: user tideline, checkpoints under /var/lib/tideline/NAME.
        QCOMPARE(run("getent", {"passwd", "tideline"}).code, 0);
        QFileInfo state("/var/lib/tideline");
        QVERIFY(state.isDir());
        QCOMPARE(state.owner(), QString("tideline"));
        if (!QStandardPaths::findExecutable("runuser").isEmpty()) {
            QVERIFY(QDir().mkpath("/var/lib/tideline/pkgtest"));
            QCOMPARE(run("chown", {"tideline:tideline", "/var/lib/tideline/pkgtest"}).code, 0);
            QVERIFY(QDir("/etc/tideline").exists());
            QFile p("/etc/tideline/pkgtest.json");
            QVERIFY(p.open(QIODevice::WriteOnly | QIODevice::Truncate));
            p.write(R"({"format":"tideline/1","name":"pkgtest","nodes":[
              {"id":"g","kind":"source.generator","params":{"count":500}},
              {"id":"out","kind":"sink.file","params":{"path":"/var/lib/tideline/pkgtest/out.jsonl"}}],
              "edges":[{"from":"g.out","to":"out.in"}]})");
            p.close();
            Proc svc = run("runuser", {"-u", "tideline", "--", "/usr/bin/tideline-run",
                                       "--checkpoint-dir", "/var/lib/tideline/pkgtest",
                                       "--log-format", "json", "/etc/tideline/pkgtest.json"});
            QFile::remove("/etc/tideline/pkgtest.json");
            QVERIFY2(svc.code == 0, qPrintable(describe(svc)));
            QVERIFY(QFileInfo("/var/lib/tideline/pkgtest/out.jsonl").size() > 0);
        }
        if (!QStandardPaths::findExecutable("systemd-analyze").isEmpty()) {
            for (const char *unit : {"/usr/lib/systemd/system/tideline-run@.service",
                                     "/usr/lib/systemd/system/tideline-run-member@.service"}) {
                Proc verify = run("systemd-analyze", {"verify", unit});
                QVERIFY2(!verify.err.contains("Unknown key") && !verify.err.contains("Invalid")
                             && !verify.err.contains("not executable"),
                         qPrintable(describe(verify)));
            }
        }
        if (!m_designerDeb.isEmpty()) {
            QVERIFY(installed("tideline"));
            Proc dv = run("/usr/bin/tideline", {"--version"});
            QVERIFY2(dv.code == 0 && dv.out.contains(TIDELINE_VERSION_STRING),
                     qPrintable(describe(dv)));
        }

        Proc rm = purgeOurs();
        QVERIFY2(rm.code == 0, qPrintable(describe(rm)));
        QVERIFY(!installed("tideline-runner"));
        QVERIFY(!installed("tideline"));
        for (const QString &f : m_runnerFiles + m_designerFiles)
            QVERIFY2(!QFileInfo::exists(f), qPrintable(f + " is still there after purge"));
        QVERIFY2(!QFileInfo::exists("/var/lib/tideline"), "purge leaves the state folder");
        QVERIFY2(!QFileInfo::exists("/usr/share/tideline"), "purge leaves /usr/share/tideline");
    }

    void cleanupTestCase()
    {
        // Never leave the machine with our packages on it, even after a failed check.
        if (::geteuid() == 0)
            purgeOurs();
        QFile::remove("/etc/tideline/pkgtest.json");
    }
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "test_packaging.moc"
