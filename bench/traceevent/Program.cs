// SPDX-License-Identifier: MIT
// bench-traceevent: TraceEvent 4.0.0's speed on the traces gcev's bench_trace walks (issue 10 item 6).
//
//   bench-traceevent --manifest manifest/gc.man [--runs N] [--source file|memory|both] TRACE...
//
// Two modes per trace, best of N runs (default 5) in one process, after one warm-up run:
//   walk    EventPipeEventSource.Process() with an AllEvents handler that counts (every event);
//   decode  the same with the Clr, Private and Rundown parsers, and for every event of gcev's GC
//           set (the manifest's (provider, id) pairs) every PayloadValue(i) and every member of
//           every struct-array element through TraceEvent's typed accessors (Values(i), Info(i),
//           Buckets(i), GenData(gen), TypeParameterID(j)), read by compiled delegates.
// With --allocs, one mode instead (the peer of bench/bench_allocs.c, issue 24):
//   allocs  TraceLog.CreateFromEventPipeDataFile (TraceEvent's stack and method resolution)
//           and, for every GCAllocationTick, AllocationSampled and GCSampledObjectAllocation
//           event, its type's count and its call stack's count; then every distinct stack's
//           frames named (FullMethodName), as gcev allocs reports types and named stacks.
//           GC_EVENTS is then the allocation events; the source is always the file (TraceLog
//           converts a file).
// One line per (file, mode), tab-separated, after a '#' header:
//   traceevent  MODE  FILE  EVENTS  GC_EVENTS  BEST_SECONDS  EVENTS_PER_SECOND  BEST_CPU_SECONDS  SOURCE
// BEST_SECONDS is wall-clock; BEST_CPU_SECONDS the process's CPU time (every thread: JIT, GC and
// TraceEvent's own work), what bench/traceevent.sh compares with bench_trace --cpu. SOURCE: file
// (EventPipeEventSource(path), each run opening the file; the default) or memory (the file's bytes
// read once before the runs, each run over a MemoryStream of them: the reader's own cost).
using System.Diagnostics;
using System.Globalization;
using System.Linq.Expressions;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Xml;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace Gcev.Bench;

internal static class Program
{
    private static long s_sink;

    private static int Main(string[] args)
    {
        string? manifest = null;
        int runs = 5;
        string source = "file";
        bool allocs = false;
        var files = new List<string>();
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--allocs")
                allocs = true;
            else if (args[i] == "--manifest")
                manifest = args[++i];
            else if (args[i] == "--runs")
                runs = int.Parse(args[++i], CultureInfo.InvariantCulture);
            else if (args[i] == "--source")
                source = args[++i];
            else
                files.Add(args[i]);
        }
        if ((manifest == null && !allocs) || files.Count == 0 || runs < 1 || source is not ("file" or "memory" or "both"))
        {
            Console.Error.WriteLine("usage: bench-traceevent --manifest gc.man [--runs N] [--source file|memory|both] TRACE...\n" +
                                    "       bench-traceevent --allocs [--runs N] TRACE...");
            return 2;
        }
        var gcSet = manifest != null ? LoadGcSet(manifest) : new HashSet<(string, int)>();
        Console.WriteLine("# tool\tmode\tfile\tevents\tgc_events\tbest_s\tevents_per_s\tbest_cpu_s\tsource");
        var sources = allocs ? new[] { "file" } : source == "both" ? new[] { "file", "memory" } : new[] { source };
        foreach (var f in files)
        {
            foreach (var src in sources)
            {
                byte[]? bytes = src == "memory" ? File.ReadAllBytes(f) : null;
                foreach (var mode in allocs ? new[] { "allocs" } : new[] { "walk", "decode" })
                {
                    long events = 0, gcEvents = 0;
                    double best = double.MaxValue, bestCpu = double.MaxValue;
                    for (int r = 0; r <= runs; r++) // run 0 warms up (JIT, file cache)
                    {
                        double c0 = CpuTime.Seconds();
                        var sw = Stopwatch.StartNew();
                        if (mode == "allocs")
                            (events, gcEvents) = Allocs(f);
                        else
                            using (var es = bytes == null ? new EventPipeEventSource(f) : new EventPipeEventSource(new MemoryStream(bytes, false)))
                                (events, gcEvents) = mode == "walk" ? Walk(es) : Decode(es, gcSet);
                        double t = sw.Elapsed.TotalSeconds, c = CpuTime.Seconds() - c0;
                        if (r > 0 && t < best)
                            best = t;
                        if (r > 0 && c < bestCpu)
                            bestCpu = c;
                    }
                    Console.WriteLine(string.Join('\t', "traceevent", mode, f, events.ToString(CultureInfo.InvariantCulture),
                        gcEvents.ToString(CultureInfo.InvariantCulture), best.ToString("F6", CultureInfo.InvariantCulture),
                        (events / best).ToString("F0", CultureInfo.InvariantCulture),
                        bestCpu.ToString("F6", CultureInfo.InvariantCulture), src));
                }
            }
        }
        GC.KeepAlive(s_sink);
        return 0;
    }

    private static HashSet<(string, int)> LoadGcSet(string path)
    {
        var set = new HashSet<(string, int)>();
        var doc = new XmlDocument();
        doc.Load(path);
        foreach (XmlElement prov in doc.GetElementsByTagName("provider"))
            foreach (XmlElement ev in prov.GetElementsByTagName("event"))
                set.Add((prov.GetAttribute("name"), int.Parse(ev.GetAttribute("value"), CultureInfo.InvariantCulture)));
        return set;
    }

    private static (long, long) Walk(EventPipeEventSource source)
    {
        long n = 0;
        source.AllEvents += _ => n++;
        source.Process();
        return (n, 0);
    }

    private static (long, long) Allocs(string path)
    {
        string etlx = Path.Combine(Path.GetTempPath(), $"bench-traceevent-{Environment.ProcessId}.etlx");
        try
        {
            TraceLog.CreateFromEventPipeDataFile(path, etlx);
            using var log = new TraceLog(etlx);
            long n = 0, samples = 0, sink = 0;
            var types = new Dictionary<string, long>();
            var stacks = new Dictionary<CallStackIndex, long>();
            foreach (TraceEvent ev in log.Events)
            {
                n++;
                string type;
                switch (ev)
                {
                    case GCAllocationTickTraceData t:
                        type = t.TypeName;
                        break;
                    case AllocationSampledTraceData s:
                        type = s.TypeName;
                        break;
                    case GCSampledObjectAllocationTraceData o:
                        type = o.TypeID.ToString(CultureInfo.InvariantCulture);
                        break;
                    default:
                        continue;
                }
                samples++;
                types[type] = types.GetValueOrDefault(type) + 1;
                CallStackIndex cs = ev.CallStackIndex();
                stacks[cs] = stacks.GetValueOrDefault(cs) + 1;
            }
            foreach (var cs in stacks.Keys)
            {
                for (TraceCallStack? c = log.CallStacks[cs]; c != null; c = c.Caller)
                    sink += c.CodeAddress.FullMethodName.Length;
            }
            s_sink += sink + types.Count;
            return (n, samples);
        }
        finally
        {
            try { File.Delete(etlx); } catch (IOException) { }
        }
    }

    private static (long, long) Decode(EventPipeEventSource source, HashSet<(string, int)> gcSet)
    {
        long n = 0, gc = 0, sink = 0;
        source.Clr.All += _ => { };
        new ClrPrivateTraceEventParser(source).All += _ => { };
        new ClrRundownTraceEventParser(source).All += _ => { };
        source.AllEvents += data =>
        {
            n++;
            int id = (int)data.ID;
            if (data.GetType().Name == "GCDynamicTraceEventImpl")
                id = 39;
            if (!gcSet.Contains((data.ProviderName, id)))
                return;
            gc++;
            var names = data.PayloadNames;
            if (names != null)
                for (int i = 0; i < names.Length; i++)
                    sink += data.PayloadValue(i)?.GetHashCode() ?? 0;
            foreach (var a in Readers.For(data.GetType()))
            {
                int count = a.Count(data);
                for (int i = 0; i < count; i++)
                    sink += a.Element(data, i);
            }
        };
        source.Process();
        s_sink += sink;
        return (n, gc);
    }
}

/// <summary>The process's CPU time: clock_gettime(CLOCK_PROCESS_CPUTIME_ID) on Linux (ns resolution;
/// Process.TotalProcessorTime reads /proc in 10 ms ticks there), TotalProcessorTime elsewhere.</summary>
internal static class CpuTime
{
    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Sec;
        public long Nsec;
    }

    [DllImport("libc", EntryPoint = "clock_gettime")]
    private static extern int ClockGettime(int clock, out Timespec ts);

    private const int ClockProcessCputimeId = 2;

    public static double Seconds()
    {
        if (OperatingSystem.IsLinux() && ClockGettime(ClockProcessCputimeId, out var ts) == 0)
            return ts.Sec + ts.Nsec * 1e-9;
        using var p = Process.GetCurrentProcess();
        return p.TotalProcessorTime.TotalSeconds;
    }
}

/// <summary>Compiled readers of one event class's struct arrays.</summary>
internal sealed class ArrayReader
{
    public required Func<TraceEvent, int> Count;
    public required Func<TraceEvent, int, long> Element; // reads every member of element i
}

internal static class Readers
{
    private static readonly Dictionary<string, string> CountOf = new()
    {
        ["Values"] = "Count", ["Info"] = "Count", ["Buckets"] = "Count", ["GenData"] = "NumGenerations",
        ["TypeParameterID"] = "TypeParameterCount",
    };
    private static readonly Dictionary<Type, ArrayReader[]> Cache = new();

    public static ArrayReader[] For(Type t)
    {
        if (Cache.TryGetValue(t, out var r))
            return r;
        var list = new List<ArrayReader>();
        foreach (var m in t.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly))
        {
            var ps = m.GetParameters();
            if (m.IsSpecialName || ps.Length != 1 || m.ReturnType == typeof(void) || !CountOf.ContainsKey(m.Name))
                continue;
            var countProp = t.GetProperty(CountOf[m.Name])!;
            var e = Expression.Parameter(typeof(TraceEvent), "e");
            var i = Expression.Parameter(typeof(int), "i");
            var typed = Expression.Convert(e, t);
            var count = Expression.Lambda<Func<TraceEvent, int>>(
                Expression.Convert(Expression.Property(typed, countProp), typeof(int)), e).Compile();
            Expression arg = ps[0].ParameterType == typeof(int) ? i : Expression.Convert(i, ps[0].ParameterType);
            var elem = Expression.Variable(m.ReturnType, "elem");
            var acc = Expression.Variable(typeof(long), "acc");
            var body = new List<Expression> { Expression.Assign(elem, Expression.Call(typed, m, arg)), Expression.Assign(acc, Expression.Constant(0L)) };
            foreach (var p in m.ReturnType.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.GetIndexParameters().Length == 0))
            {
                Expression v = Expression.Property(elem, p);
                Expression h = p.PropertyType.IsValueType
                    ? Expression.Call(v, p.PropertyType.GetMethod("GetHashCode", Type.EmptyTypes)!)
                    : Expression.Condition(Expression.Equal(v, Expression.Constant(null, p.PropertyType)), Expression.Constant(0),
                        Expression.Call(v, typeof(object).GetMethod("GetHashCode")!));
                body.Add(Expression.AddAssign(acc, Expression.Convert(h, typeof(long))));
            }
            body.Add(acc);
            var element = Expression.Lambda<Func<TraceEvent, int, long>>(Expression.Block(new[] { elem, acc }, body), e, i).Compile();
            list.Add(new ArrayReader { Count = count, Element = element });
        }
        r = list.ToArray();
        Cache[t] = r;
        return r;
    }
}
