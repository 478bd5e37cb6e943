// SPDX-License-Identifier: MIT
// Scenario `allocsites` (issue 24): allocation sites gcev allocs must find. Four threads, each
// running one named site that allocates one type of a known size in a known amount:
//
//   thread      site (allocating method <- its caller)          type                  heap
//   orders      AllocSites.NewOrder   <- AllocSites.SiteOrders   Gcev.Workload.Order   small (48 B)
//   buffers     AllocSites.NewBuffer  <- AllocSites.SiteBuffers  System.Byte[]         small (1,024 B)
//   large       AllocSites.NewLarge   <- AllocSites.SiteLarge    System.Double[]       large (160,024 B)
//   pinned      AllocSites.NewPinned  <- AllocSites.SitePinned   System.Byte[] pinned  pinned (4,120 B)
//
// Amounts (MB of each site, GCEV_ALLOCSITES_MB "orders,buffers,large,pinned", default 12,8,10,6)
// are exact counts of objects; each thread also measures GC.GetAllocatedBytesForCurrentThread()
// around its loop. GCEV_ALLOCSITES_DELAY_MS waits before allocating (after printing
// {"event":"ready","pid":P}) and GCEV_ALLOCSITES_LINGER_MS after, so that a live session can
// attach first and stop before the process ends. The result is one line:
// {"allocsites":{"sites":[{"site","type","kind","objects","object_size","bytes","thread_bytes"}...]}}.
using System.Runtime.CompilerServices;
using System.Text;

namespace Gcev.Workload;

internal sealed class Order
{
    public long Id, Quantity, Price, Time; // 16 bytes of header + 32: 48 bytes
}

internal static class AllocSites
{
    private static readonly object?[] s_ring = new object?[64];
    private static int s_ringNext;

    private static void Keep(object o)
    {
        // a few recent objects stay reachable so no allocation is optimised away
        int i = Interlocked.Increment(ref s_ringNext) & 63;
        s_ring[i] = o;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Order NewOrder(long i) => new Order { Id = i, Quantity = i & 7, Price = i * 3, Time = i };

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static byte[] NewBuffer() => new byte[1000];

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static double[] NewLarge() => new double[20_000];

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static byte[] NewPinned() => GC.AllocateArray<byte>(4096, pinned: true);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long SiteOrders(long count)
    {
        for (long i = 0; i < count; i++)
        {
            var o = NewOrder(i);
            if ((i & 1023) == 0)
                Keep(o);
        }
        return count;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long SiteBuffers(long count)
    {
        for (long i = 0; i < count; i++)
        {
            var b = NewBuffer();
            if ((i & 255) == 0)
                Keep(b);
        }
        return count;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long SiteLarge(long count)
    {
        for (long i = 0; i < count; i++)
        {
            var d = NewLarge();
            if ((i & 7) == 0)
                Keep(d);
        }
        return count;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long SitePinned(long count)
    {
        for (long i = 0; i < count; i++)
        {
            var p = NewPinned();
            if ((i & 63) == 0)
                Keep(p);
        }
        return count;
    }

    private sealed record Site(string Name, string Type, string Kind, long ObjectSize, double Mb, Func<long, long> Run)
    {
        public long Objects;
        public long ThreadBytes;
    }

    private static double[] Amounts()
    {
        var d = new double[] { 12, 8, 10, 6 };
        string? s = Environment.GetEnvironmentVariable("GCEV_ALLOCSITES_MB");
        if (!string.IsNullOrEmpty(s))
        {
            var parts = s.Split(',');
            for (int i = 0; i < parts.Length && i < 4; i++)
                d[i] = double.Parse(parts[i], System.Globalization.CultureInfo.InvariantCulture);
        }
        return d;
    }

    private static int EnvMs(string name)
    {
        string? s = Environment.GetEnvironmentVariable(name);
        return string.IsNullOrEmpty(s) ? 0 : int.Parse(s, System.Globalization.CultureInfo.InvariantCulture);
    }

    public static void Run()
    {
        double[] mb = Amounts();
        var sites = new[]
        {
            new Site("Gcev.Workload.AllocSites.NewOrder", "Gcev.Workload.Order", "small", 48, mb[0], SiteOrders),
            new Site("Gcev.Workload.AllocSites.NewBuffer", "System.Byte[]", "small", 1024, mb[1], SiteBuffers),
            new Site("Gcev.Workload.AllocSites.NewLarge", "System.Double[]", "large", 160_024, mb[2], SiteLarge),
            new Site("Gcev.Workload.AllocSites.NewPinned", "System.Byte[]", "pinned", 4120, mb[3], SitePinned),
        };
        int delay = EnvMs("GCEV_ALLOCSITES_DELAY_MS");
        if (delay > 0)
        {
            Console.WriteLine($"{{\"event\":\"ready\",\"pid\":{Environment.ProcessId}}}");
            Console.Out.Flush();
            Thread.Sleep(delay);
        }
        var threads = new Thread[sites.Length];
        for (int t = 0; t < sites.Length; t++)
        {
            var site = sites[t];
            threads[t] = new Thread(() =>
            {
                long count = (long)(site.Mb * 1024 * 1024 / site.ObjectSize);
                long before = GC.GetAllocatedBytesForCurrentThread();
                site.Objects = site.Run(count);
                site.ThreadBytes = GC.GetAllocatedBytesForCurrentThread() - before;
            });
            threads[t].Name = "allocsites-" + t;
        }
        foreach (var t in threads)
            t.Start();
        foreach (var t in threads)
            t.Join();
        var sb = new StringBuilder("{\"allocsites\":{\"sites\":[");
        for (int i = 0; i < sites.Length; i++)
        {
            var s = sites[i];
            if (i > 0)
                sb.Append(',');
            sb.Append($"{{\"site\":\"{s.Name}\",\"type\":\"{s.Type}\",\"kind\":\"{s.Kind}\",\"objects\":{s.Objects},"
                      + $"\"object_size\":{s.ObjectSize},\"bytes\":{s.Objects * s.ObjectSize},\"thread_bytes\":{s.ThreadBytes}}}");
        }
        sb.Append("]}}");
        Console.WriteLine(sb.ToString());
        Console.Out.Flush();
        int linger = EnvMs("GCEV_ALLOCSITES_LINGER_MS");
        if (linger > 0)
            Thread.Sleep(linger);
    }
}
