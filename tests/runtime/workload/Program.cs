// SPDX-License-Identifier: MIT
// gcev-workload: makes the .NET GC do what real services see, one named scenario at a time,
// so that traces captured from it hold every GC event gcev decodes (tests/runtime/README.md).
//
//   gcev-workload [--seconds S] [--scale K] SCENARIO...   run the scenarios in order ("all": every one)
//   gcev-workload live                                    allocate until told to stop (see RunLive)
//   gcev-workload --list                                  the scenario names
//
// The GC configuration comes from the environment (DOTNET_gcServer, DOTNET_gcConcurrent,
// DOTNET_GCHeapCount, DOTNET_GCDynamicAdaptationMode, DOTNET_GCName, DOTNET_GCHeapHardLimit ...);
// the first line on stdout is a JSON record of what the runtime says it is running with.
using System.Diagnostics;
using System.Reflection;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;

namespace Gcev.Workload;

internal static class Program
{
    private static double s_seconds = 2.0;
    private static int s_scale = 1;
    private static int s_depth;
    // Keeps objects reachable so the JIT cannot drop allocations.
    private static object? s_sink;

    private static readonly (string Name, string What, Action Run)[] Scenarios =
    {
        ("gen0", "steady gen0 churn: short-lived small objects", Gen0Churn),
        ("promote", "gen1 and gen2 promotion: a sliding window of survivors", Promote),
        ("bgc", "background GC with foreground GCs inside it (needs concurrent GC)", BackgroundWithForeground),
        ("induced", "GC.Collect in every mode: default, forced/optimized, blocking or not, compacting, aggressive", Induced),
        ("loh", "LOH and POH allocation", LohPoh),
        ("lohwait", "LOH allocation during background GCs (BGCAllocWaitBegin/End)", LohWait),
        ("lohcompact", "LOH compaction (GCSettings.LargeObjectHeapCompactionMode = CompactOnce)", LohCompact),
        ("pinning", "pinned GCHandles and fixed buffers held across compacting GCs", Pinning),
        ("finalizers", "objects with finalizers", Finalizers),
        ("handles", "weak, weak-track-resurrection and dependent handles, ConditionalWeakTable", Handles),
        ("handlecount", "a known number of GC handles of each kind created, some reassigned, most freed, some kept (issue 28)", HandleCount),
        ("pressure", "GC.AddMemoryPressure / RemoveMemoryPressure", Pressure),
        ("nogc", "a NoGCRegion (GC.TryStartNoGCRegion / EndNoGCRegion)", NoGc),
        ("sustained", "GCLatencyMode.SustainedLowLatency while allocating", Sustained),
        ("threads", "many allocating threads", Threads),
        ("hardlimit", "allocation near DOTNET_GCHeapHardLimit (run with a hard limit set)", HardLimit),
        ("fullgcnotify", "GC.RegisterForFullGCNotification (needs non-concurrent GC)", FullGcNotify),
        ("heavy", "maximum allocation rate with survivors (for the small-buffer run)", Heavy),
        ("heapshape", "a heap of known shape held until 'stop' on stdin, for gcev heap (issue 25, HeapShape.cs)", HeapShape.Run),
        ("allocsites", "four threads at known allocation sites: small, byte[], LOH and POH (issue 24, AllocSites.cs)", AllocSites.Run),
    };

    private static int s_bgcEveryMs; // live: --bgc-every MS (0: none)
    private static bool s_hold; // live: --hold (no allocation before the first 'start')

    private static int Main(string[] args)
    {
        var names = new List<string>();
        for (int i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--seconds":
                    s_seconds = double.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture);
                    break;
                case "--scale":
                    s_scale = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture);
                    break;
                case "--depth":
                    s_depth = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture);
                    break;
                case "--bgc-every":
                    s_bgcEveryMs = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture);
                    break;
                case "--hold":
                    s_hold = true;
                    break;
                case "--list":
                    foreach (var s in Scenarios)
                        Console.WriteLine($"{s.Name,-13} {s.What}");
                    Console.WriteLine($"{"all",-13} every scenario above except hardlimit, fullgcnotify and heavy");
                    Console.WriteLine($"{"live",-13} allocate until 'stop' on stdin or SIGINT/SIGTERM; 'start' prints the GC counts");
                    Console.WriteLine($"{"",-13} (--hold: allocate only from the first 'start' on)");
                    return 0;
                default:
                    names.Add(args[i]);
                    break;
            }
        }
        if (names.Count == 0)
        {
            Console.Error.WriteLine("usage: gcev-workload [--seconds S] [--scale K] SCENARIO... | live | --list");
            return 2;
        }
        PrintConfiguration();
        if (names.Count == 1 && names[0] == "live")
            return RunLive();
        var run = new List<(string Name, string What, Action Run)>();
        foreach (var n in names)
        {
            if (n == "all")
            {
                run.AddRange(Scenarios.Where(s => s.Name is not ("hardlimit" or "fullgcnotify" or "heavy" or "allocsites" or "heapshape")));
                continue;
            }
            int k = Array.FindIndex(Scenarios, s => s.Name == n);
            if (k < 0)
            {
                Console.Error.WriteLine($"gcev-workload: unknown scenario '{n}' (--list shows them)");
                return 2;
            }
            run.Add(Scenarios[k]);
        }
        foreach (var s in run)
        {
            var sw = Stopwatch.StartNew();
            int[] before = Counts();
            s.Run();
            int[] after = Counts();
            Console.WriteLine($"{{\"scenario\":\"{s.Name}\",\"ms\":{sw.ElapsedMilliseconds},"
                              + $"\"gc0\":{after[0] - before[0]},\"gc1\":{after[1] - before[1]},\"gc2\":{after[2] - before[2]}}}");
        }
        return 0;
    }

    private static int[] Counts() => new[] { GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2) };

    private static string CountsJson(string what)
    {
        int[] c = Counts();
        return $"{{\"event\":\"{what}\",\"gen0\":{c[0]},\"gen1\":{c[1]},\"gen2\":{c[2]},\"pid\":{Environment.ProcessId}}}";
    }

    private static void PrintConfiguration()
    {
        var sb = new StringBuilder();
        sb.Append("{\"runtime\":\"").Append(RuntimeInformation.FrameworkDescription).Append('"');
        sb.Append(",\"version\":\"").Append(Environment.Version).Append('"');
        sb.Append(",\"pid\":").Append(Environment.ProcessId);
        sb.Append(",\"processors\":").Append(Environment.ProcessorCount);
        sb.Append(",\"server\":").Append(GCSettings.IsServerGC ? "true" : "false");
        sb.Append(",\"latency_mode\":\"").Append(GCSettings.LatencyMode).Append('"');
        sb.Append(",\"gc\":{");
        bool first = true;
        foreach (var kv in GC.GetConfigurationVariables().OrderBy(k => k.Key, StringComparer.Ordinal))
        {
            if (!first)
                sb.Append(',');
            first = false;
            sb.Append('"').Append(kv.Key).Append("\":\"").Append(kv.Value).Append('"');
        }
        sb.Append("}}");
        Console.WriteLine(sb.ToString());
    }

    private static bool Until(Stopwatch sw, double seconds) => sw.Elapsed.TotalSeconds < seconds;

    // ---- scenarios ----

    private static void Gen0Churn()
    {
        var sw = Stopwatch.StartNew();
        long n = 0;
        while (Until(sw, s_seconds))
        {
            for (int i = 0; i < 1000 * s_scale; i++)
                s_sink = new byte[32 + (i & 255)];
            n++;
            Thread.Sleep(1); // pacing: a GC rate real services see, and traces of a few hundred KB
        }
        GC.KeepAlive(n);
    }

    private static void Promote()
    {
        var sw = Stopwatch.StartNew();
        var window = new object[50_000 * s_scale];
        int k = 0;
        var rng = new Random(1);
        while (Until(sw, s_seconds))
        {
            for (int i = 0; i < 2000 * s_scale; i++)
            {
                // survivors of varying age: some die young, some reach gen2
                window[k] = new int[4 + rng.Next(60)];
                k = (k + 1 + rng.Next(3)) % window.Length;
                s_sink = new byte[64];
            }
            Thread.Sleep(1);
        }
        s_sink = window;
        s_sink = null;
    }

    private static void BackgroundWithForeground()
    {
        // A large gen2 graph makes the background mark long enough for foreground (ephemeral)
        // GCs to happen inside it while this thread keeps allocating.
        var old = new List<object[]>();
        for (int i = 0; i < 20000 * s_scale; i++)
        {
            var node = new object[64];
            for (int j = 0; j < node.Length; j++)
                node[j] = new byte[48];
            old.Add(node);
        }
        GC.Collect(2, GCCollectionMode.Forced, blocking: true);
        var sw = Stopwatch.StartNew();
        int rounds = 0;
        while (Until(sw, s_seconds))
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: false); // a BGC when concurrent GC is on
            var inner = Stopwatch.StartNew();
            while (inner.ElapsedMilliseconds < 150)
            {
                // fast enough to exhaust the gen0 budget while the background mark runs
                for (int i = 0; i < 20000 * s_scale; i++)
                    s_sink = new byte[100];
                old[(rounds * 7 + inner.Elapsed.Milliseconds) % old.Count][rounds % 64] = new byte[48];
                Thread.Sleep(1);
            }
            rounds++;
        }
        GC.KeepAlive(old);
    }

    private static void Induced()
    {
        var keep = new List<byte[]>();
        void Fill()
        {
            for (int i = 0; i < 20000; i++)
            {
                var b = new byte[40];
                if ((i & 15) == 0)
                    keep.Add(b);
            }
        }
        int rounds = Math.Max(1, (int)(s_seconds * 2));
        for (int r = 0; r < rounds; r++)
        {
            Fill(); GC.Collect();
            Fill(); GC.Collect(0);
            Fill(); GC.Collect(1, GCCollectionMode.Forced);
            Fill(); GC.Collect(1, GCCollectionMode.Optimized);
            Fill(); GC.Collect(2, GCCollectionMode.Default, blocking: true);
            Fill(); GC.Collect(2, GCCollectionMode.Forced, blocking: false);
            Fill(); GC.Collect(2, GCCollectionMode.Optimized, blocking: false);
            Fill(); GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
            Fill(); GC.Collect(2, GCCollectionMode.Forced, blocking: false, compacting: false);
            Fill(); GC.Collect(2, GCCollectionMode.Aggressive, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();
            if (keep.Count > 100_000)
                keep.RemoveRange(0, 50_000);
        }
        GC.KeepAlive(keep);
    }

    private static void LohPoh()
    {
        var sw = Stopwatch.StartNew();
        var keep = new List<byte[]>();
        int i = 0;
        while (Until(sw, s_seconds))
        {
            var big = new byte[90_000 + (i % 17) * 10_000];   // LOH (>= 85,000 bytes)
            var pinned = GC.AllocateArray<byte>(1000 + (i % 5) * 4000, pinned: true); // POH
            var pinnedBig = GC.AllocateUninitializedArray<long>(20_000, pinned: true);  // POH, large
            if ((i & 3) == 0)
                keep.Add(big);
            if ((i & 7) == 0)
                keep.Add(pinned);
            s_sink = pinnedBig;
            if (keep.Count > 400)
                keep.RemoveRange(0, 200);
            for (int j = 0; j < 200; j++)
                s_sink = new byte[64];
            i++;
            Thread.Sleep(2);
        }
        GC.KeepAlive(keep);
    }

    private static void LohWait()
    {
        // A large gen2 graph keeps each background mark busy while this thread allocates large
        // arrays: past the UOH budget the allocation waits for the BGC.
        var old = new List<object[]>();
        for (int i = 0; i < 3000 * s_scale; i++)
        {
            var node = new object[64];
            for (int j = 0; j < node.Length; j++)
                node[j] = new byte[32];
            old.Add(node);
        }
        var keep = new List<byte[]>();
        var sw = Stopwatch.StartNew();
        do
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: false);
            for (int i = 0; i < 100; i++)
                keep.Add(new byte[200_000]);
            if (keep.Count > 300)
                keep.RemoveRange(0, 200);
            Thread.Sleep(5);
        }
        while (Until(sw, s_seconds));
        GC.KeepAlive(old);
        GC.KeepAlive(keep);
    }

    private static void LohCompact()
    {
        var rounds = Math.Max(1, (int)(s_seconds * 2));
        for (int r = 0; r < rounds; r++)
        {
            // fragment the LOH: keep every other large array
            var big = new List<byte[]?>();
            for (int i = 0; i < 200 * s_scale; i++)
                big.Add(new byte[100_000 + (i % 7) * 8_000]);
            for (int i = 0; i < big.Count; i += 2)
                big[i] = null;
            GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
            GC.Collect();
            GC.KeepAlive(big);
        }
    }

    private static unsafe void Pinning()
    {
        var sw = Stopwatch.StartNew();
        var handles = new List<GCHandle>();
        var survivors = new List<object>();
        int round = 0;
        while (Until(sw, s_seconds))
        {
            // pinned handles scattered among survivors: pinned plugs in gen0/gen1 when compacting
            for (int i = 0; i < 200; i++)
            {
                var b = new byte[128];
                survivors.Add(new byte[256]);
                if ((i & 15) == 0)
                    handles.Add(GCHandle.Alloc(b, GCHandleType.Pinned));
                s_sink = new byte[512];
            }
            // a fixed buffer held across an induced compacting GC
            var buf = new byte[4096];
            fixed (byte* p = buf)
            {
                p[0] = 1;
                for (int i = 0; i < 1000; i++)
                    s_sink = new byte[100];
                GC.Collect(1, GCCollectionMode.Forced, blocking: true, compacting: true);
                p[1] = 2;
            }
            if (handles.Count > 300)
            {
                for (int i = 0; i < 150; i++)
                    handles[i].Free();
                handles.RemoveRange(0, 150);
            }
            if (survivors.Count > 40_000)
                survivors.RemoveRange(0, 20_000);
            if ((++round & 3) == 0)
                GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
            Thread.Sleep(10);
        }
        foreach (var h in handles)
            h.Free();
        GC.KeepAlive(survivors);
    }

    private sealed class WithFinalizer
    {
        private readonly byte[] _data = new byte[64];
        public static int Finalized;
        ~WithFinalizer()
        {
            Interlocked.Increment(ref Finalized);
            GC.KeepAlive(_data);
        }
    }

    private static void Finalizers()
    {
        var sw = Stopwatch.StartNew();
        while (Until(sw, s_seconds))
        {
            // 100 finalizable objects a batch: every one is a FinalizeObject (+ BulkType) event
            for (int i = 0; i < 100 * s_scale; i++)
                s_sink = new WithFinalizer();
            for (int i = 0; i < 2000; i++)
                s_sink = new byte[100];
            Thread.Sleep(1);
            if (sw.ElapsedMilliseconds % 500 < 20)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
        }
        GC.Collect();
        GC.WaitForPendingFinalizers();
    }

    private static void Handles()
    {
        var sw = Stopwatch.StartNew();
        var cwt = new ConditionalWeakTable<object, byte[]>();
        var weak = new List<WeakReference>();
        var deps = new List<DependentHandle>();
        var roots = new List<object>();
        while (Until(sw, s_seconds))
        {
            // 50 of each a round: every handle is a SetGCHandle and a DestroyGCHandle event
            for (int i = 0; i < 50 * s_scale; i++)
            {
                var o = new object();
                weak.Add(new WeakReference(o, trackResurrection: (i & 1) == 0));
                deps.Add(new DependentHandle(o, new byte[32]));
                cwt.Add(o, new byte[16]);
                if ((i & 7) == 0)
                    roots.Add(o);
                s_sink = new byte[200];
            }
            for (int i = 0; i < 2000; i++)
                s_sink = new byte[100];
            if (deps.Count > 1000)
            {
                for (int i = 0; i < 500; i++)
                    deps[i].Dispose();
                deps.RemoveRange(0, 500);
                weak.RemoveRange(0, Math.Min(500, weak.Count));
                roots.RemoveRange(0, roots.Count / 2);
                GC.Collect();
            }
            Thread.Sleep(2);
        }
        foreach (var d in deps)
            d.Dispose();
        GC.KeepAlive(roots);
    }

    // Kept alive to the end of the process: never freed in the trace.
    private static readonly List<GCHandle> s_keptHandles = new();
    private static readonly List<DependentHandle> s_keptDependent = new();
    private static readonly List<object> s_keptObjects = new();

    // The runtime's handle id: GCHandle keeps a pinned handle's id with its low bit set.
    private static long HandleId(GCHandle h) => GCHandle.ToIntPtr(h).ToInt64() & ~1L;

    private static FieldInfo? s_dependentHandleField;

    private static long HandleId(DependentHandle d) => ((IntPtr)s_dependentHandleField!.GetValue(d)!).ToInt64();

    // Deterministic, no timing: per kind (runtime HNDTYPE: 0 weak short, 1 weak long, 2 strong,
    // 3 pinned, 6 dependent) `n` handles made, all but `keep` freed; `reassign` strong ones get a
    // new target while live (a SetGCHandle of a live handle, not a creation). --scale multiplies.
    // One JSON line says what was done and lists the kept handles' ids.
    private static void HandleCount()
    {
        var plan = new (GCHandleType? Type, int Kind, int N, int Keep)[]
        {
            (GCHandleType.Weak, 0, 30, 3),
            (GCHandleType.WeakTrackResurrection, 1, 20, 2),
            (GCHandleType.Normal, 2, 40, 4),
            (GCHandleType.Pinned, 3, 25, 5),
            (null, 6, 15, 1), // DependentHandle
        };
        const int reassign = 10;
        // Looked up before any handle is made, at every scale: reflection makes runtime handles
        // of its own, which a --scale 0 run then has too.
        s_dependentHandleField = typeof(DependentHandle).GetField("_handle", BindingFlags.NonPublic | BindingFlags.Instance)
                                 ?? throw new InvalidOperationException("DependentHandle._handle not found");
        // The finalizer thread sets two handles of its own (its Thread object's weak and strong
        // handles, made empty at its start) the first time it runs managed code. It mostly runs
        // after the trace; on a loaded machine it sometimes ran during it (1 --scale 0 run in 60
        // with three busy loops beside: two more Sets of live handles). Run it here, at every
        // scale, so that both runs have those Sets.
        GC.Collect();
        GC.WaitForPendingFinalizers();
        var sb = new StringBuilder("{\"handlecount\":{\"kinds\":[");
        var kept = new StringBuilder();
        int created = 0, freed = 0, reassigned = 0;
        for (int k = 0; k < plan.Length; k++)
        {
            var (type, kind, n0, keep0) = plan[k];
            int n = n0 * s_scale, keep = keep0 * s_scale;
            var made = new List<GCHandle>();
            var deps = new List<DependentHandle>();
            for (int i = 0; i < n; i++)
            {
                var o = new byte[16];
                s_keptObjects.Add(o); // targets stay reachable: weak handles keep their object
                if (type is GCHandleType t)
                    made.Add(GCHandle.Alloc(o, t));
                else
                    deps.Add(new DependentHandle(o, new byte[8]));
            }
            created += n;
            if (kind == 2)
            {
                for (int i = 0; i < reassign * s_scale; i++)
                {
                    var o = new byte[16];
                    s_keptObjects.Add(o);
                    var h = made[i];
                    h.Target = o;
                    reassigned++;
                }
            }
            for (int i = 0; i < n; i++)
            {
                long id = type is null ? HandleId(deps[i]) : HandleId(made[i]);
                if (i < n - keep)
                {
                    if (type is null)
                        deps[i].Dispose();
                    else
                        made[i].Free();
                    freed++;
                    continue;
                }
                if (type is null)
                    s_keptDependent.Add(deps[i]);
                else
                    s_keptHandles.Add(made[i]);
                kept.Append(kept.Length > 0 ? "," : "").Append("{\"id\":").Append(id).Append(",\"kind\":").Append(kind).Append('}');
            }
            sb.Append(k > 0 ? "," : "").Append("{\"kind\":").Append(kind).Append(",\"created\":").Append(n)
              .Append(",\"freed\":").Append(n - keep).Append(",\"kept\":").Append(keep).Append('}');
        }
        sb.Append("],\"created\":").Append(created).Append(",\"freed\":").Append(freed)
          .Append(",\"kept\":").Append(created - freed).Append(",\"reassigned\":").Append(reassigned)
          .Append(",\"kept_ids\":[").Append(kept).Append("]}}");
        Console.WriteLine(sb.ToString());
    }

    private static void Pressure()
    {
        var sw = Stopwatch.StartNew();
        while (Until(sw, s_seconds))
        {
            GC.AddMemoryPressure(64L << 20);
            for (int i = 0; i < 5000; i++)
                s_sink = new byte[100];
            GC.RemoveMemoryPressure(64L << 20);
            GC.AddMemoryPressure(1L << 20);
            GC.RemoveMemoryPressure(1L << 20);
            Thread.Sleep(10);
        }
    }

    private static void NoGc()
    {
        var rounds = Math.Max(1, (int)(s_seconds * 2));
        for (int r = 0; r < rounds; r++)
        {
            if (GC.TryStartNoGCRegion(16L << 20))
            {
                for (int i = 0; i < 10000; i++)
                    s_sink = new byte[100];
                if (GCSettings.LatencyMode == GCLatencyMode.NoGCRegion)
                    GC.EndNoGCRegion();
            }
            for (int i = 0; i < 100000; i++)
                s_sink = new byte[100];
        }
    }

    private static void Sustained()
    {
        var old = GCSettings.LatencyMode;
        GCSettings.LatencyMode = GCLatencyMode.SustainedLowLatency;
        try
        {
            Promote();
        }
        finally
        {
            GCSettings.LatencyMode = old;
        }
    }

    private static void Threads()
    {
        int n = Math.Max(8, Environment.ProcessorCount * 4);
        var threads = new Thread[n];
        for (int t = 0; t < n; t++)
        {
            int seed = t;
            threads[t] = new Thread(() =>
            {
                var sw = Stopwatch.StartNew();
                var keep = new object[1000];
                int k = 0;
                while (Until(sw, s_seconds))
                {
                    for (int i = 0; i < 1000; i++)
                    {
                        var o = new byte[24 + ((i + seed) & 127)];
                        if ((i & 31) == 0)
                            keep[k++ % keep.Length] = o;
                    }
                    Thread.Sleep(1);
                }
                GC.KeepAlive(keep);
            });
            threads[t].Start();
        }
        foreach (var t in threads)
            t.Join();
    }

    private static void HardLimit()
    {
        // Run with DOTNET_GCHeapHardLimit (hex bytes): holds live data up to ~75% of the limit,
        // then churns, so GCs happen close to it; an OutOfMemoryException ends the fill phase
        // and is counted (not fatal) in the churn phase.
        ulong limit = (ulong)GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        var held = new List<byte[]>();
        long heldBytes = 0;
        int ooms = 0;
        try
        {
            while (heldBytes < (long)(limit * 0.75))
            {
                var b = new byte[16 * 1024];
                held.Add(b);
                heldBytes += b.Length;
            }
        }
        catch (OutOfMemoryException)
        {
            held.RemoveRange(0, held.Count / 10);
        }
        var sw = Stopwatch.StartNew();
        int k = 0;
        while (Until(sw, s_seconds))
        {
            try
            {
                for (int i = 0; i < 1000; i++)
                    s_sink = new byte[256];
                held[k++ % held.Count] = new byte[16 * 1024];
            }
            catch (OutOfMemoryException)
            {
                ooms++;
                held.RemoveRange(0, Math.Min(held.Count - 1, 64));
            }
            Thread.Sleep(1);
        }
        Console.Error.WriteLine($"hardlimit: limit {limit} bytes, held {heldBytes} bytes, {ooms} OutOfMemoryException");
        GC.KeepAlive(held);
    }

    private static void FullGcNotify()
    {
        // Throws InvalidOperationException when concurrent GC is on: the caller picks the config.
        GC.RegisterForFullGCNotification(10, 10);
        int approached = 0, completed = 0;
        var stop = false;
        var watcher = new Thread(() =>
        {
            while (!Volatile.Read(ref stop))
            {
                if (GC.WaitForFullGCApproach(100) == GCNotificationStatus.Succeeded)
                {
                    approached++;
                    if (GC.WaitForFullGCComplete(1000) == GCNotificationStatus.Succeeded)
                        completed++;
                }
            }
        });
        watcher.Start();
        var sw = Stopwatch.StartNew();
        var keep = new List<byte[]>();
        while (Until(sw, s_seconds))
        {
            for (int i = 0; i < 200; i++)
                keep.Add(new byte[1000]);
            if (keep.Count > 100_000)
                keep.RemoveRange(0, 50_000);
        }
        Volatile.Write(ref stop, true);
        watcher.Join();
        GC.CancelFullGCNotification();
        Console.Error.WriteLine($"fullgcnotify: approached {approached}, completed {completed}");
    }

    private static void Heavy()
    {
        // Several threads allocating as fast as they can, with enough survivors to make gen1/gen2
        // GCs and per-heap histories: meant to overrun a 1 MB EventPipe buffer. --depth N runs
        // the loop N calls deep, so that every event's stack is large (N x 8 bytes) and the
        // buffer overflows at a moderate event rate.
        int n = Math.Max(2, Environment.ProcessorCount) * s_scale;
        var threads = new Thread[n];
        for (int t = 0; t < n; t++)
        {
            threads[t] = new Thread(() => Deep(s_depth, () =>
            {
                var sw = Stopwatch.StartNew();
                var keep = new object[20000];
                int k = 0;
                while (Until(sw, s_seconds))
                {
                    for (int i = 0; i < 1000; i++)
                    {
                        var o = new byte[16 + (i & 63)];
                        if ((i & 7) == 0)
                            keep[k++ % keep.Length] = o;
                    }
                }
                GC.KeepAlive(keep);
            }), 16 << 20);
            threads[t].Start();
        }
        foreach (var t in threads)
            t.Join();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Deep(int depth, Action body)
    {
        if (depth <= 0)
        {
            body();
            return 0;
        }
        return Deep(depth - 1, body) + 1;
    }

    // ---- live: allocate until told to stop ----
    //
    // Reads lines on stdin: "start" prints {"event":"start",gen0,gen1,gen2,pid} (the GC counts when
    // a live session starts), "stop" (or end of input, SIGINT, SIGTERM) prints the same record
    // with "event":"stop" and exits 0. Before any line it prints {"event":"ready",...}.
    // When stdin is empty from the start (e.g. /dev/null) only SIGINT/SIGTERM stop it.
    // --hold: nothing is allocated (nor --bgc-every GCs forced) before the first "start", whose
    // counts are printed first: sessions attached before it see every GC of the run.
    private static int RunLive()
    {
        using var stopped = new ManualResetEventSlim(false);
        using var go = new ManualResetEventSlim(!s_hold);
        var lck = new object();
        bool reported = false;
        void Stop()
        {
            lock (lck)
            {
                if (reported)
                    return;
                reported = true;
                Console.WriteLine(CountsJson("stop"));
                Console.Out.Flush();
            }
            stopped.Set();
        }
        using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, c => { c.Cancel = true; Stop(); });
        using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, c => { c.Cancel = true; Stop(); });
        var allocator = new Thread(() =>
        {
            var keep = new object[1000 * s_scale];
            int k = 0;
            while (!go.Wait(50))
                if (stopped.IsSet)
                    return;
            while (!stopped.IsSet)
            {
                for (int i = 0; i < 100 * s_scale; i++)
                {
                    var o = new byte[32 + (i & 127)];
                    if ((i & 15) == 0)
                        keep[k++ % keep.Length] = o;
                }
                Thread.Sleep(1); // ~10 MB/s (x scale): steady GCs without flooding a session
            }
            GC.KeepAlive(keep);
        }) { IsBackground = true };
        allocator.Start();
        // --bgc-every MS: a background GC every MS ms (a non-blocking induced gen2 GC, which a
        // concurrent-GC runtime runs in the background) while the allocator goes on, so the
        // gen0 GCs that follow a background GC's start are always there to be seen
        Thread? bgc = null;
        if (s_bgcEveryMs > 0)
        {
            bgc = new Thread(() =>
            {
                while (!go.Wait(50))
                    if (stopped.IsSet)
                        return;
                while (!stopped.Wait(s_bgcEveryMs))
                    GC.Collect(2, GCCollectionMode.Forced, blocking: false);
            }) { IsBackground = true };
            bgc.Start();
        }
        Console.WriteLine(CountsJson("ready"));
        Console.Out.Flush();
        var reader = new Thread(() =>
        {
            string? line;
            bool any = false;
            while ((line = Console.In.ReadLine()) != null)
            {
                any = true;
                line = line.Trim();
                if (line == "start")
                {
                    lock (lck)
                    {
                        if (!reported)
                        {
                            Console.WriteLine(CountsJson("start"));
                            Console.Out.Flush();
                        }
                        go.Set();
                    }
                }
                else if (line == "stop")
                {
                    break;
                }
            }
            // stdin empty from the start (/dev/null): only a signal stops us
            if (any)
                Stop();
        }) { IsBackground = true };
        reader.Start();
        stopped.Wait();
        allocator.Join();
        return 0;
    }
}
