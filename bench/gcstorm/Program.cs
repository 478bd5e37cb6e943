// SPDX-License-Identifier: MIT
// gcev-gcstorm: a fixed number of GCs for the .NET 10 bench trace (issue 27 item 5).
//
//   gcev-gcstorm [--gcs N]        (default 25000)
//
// .NET 10 ignores DOTNET_GCgen0size, so the GC count cannot be raised by shrinking gen0: this
// program induces its GCs itself, one per iteration after a little allocation far below the gen0
// budget (each induced GC resets it), and stops when the runtime's count (GC.CollectionCount(0),
// every GC since the start) reaches N: the trace holds exactly N GCs on every run and machine.
// The schedule, per 1,000 iterations: one background gen2 (GC.Collect(2, Forced, blocking:
// false), with concurrent GC on) during which this thread allocates fast until the background GC
// ends, so that the gen0 budget runs out and ephemeral GCs run inside it as foreground GCs (how
// many depends on timing; the total does not, since they count towards N); one blocking sweeping
// gen2; one blocking compacting gen2; a gen1 every 8th; gen0 otherwise. A 40 MB graph kept in
// gen2 makes each background mark long enough for that; a ring of survivors gives gen1 and gen2
// something to promote and free.
//
// stdout: a JSON line of the runtime's configuration, then one with the GC counts. Exit status 1
// when the runtime ran another number of GCs than N (a GC triggered by allocation at the end).
using System.Globalization;
using System.Runtime;
using System.Runtime.InteropServices;

namespace Gcev.Bench;

internal static class Program
{
    private static object? s_sink; // keeps the short-lived allocations from being optimised away

    private static int Main(string[] args)
    {
        int gcs = 25000;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--gcs" && i + 1 < args.Length)
                gcs = int.Parse(args[++i], CultureInfo.InvariantCulture);
            else
            {
                Console.Error.WriteLine("usage: gcev-gcstorm [--gcs N]");
                return 2;
            }
        }
        Console.WriteLine($"{{\"runtime\":\"{RuntimeInformation.FrameworkDescription}\",\"server\":{(GCSettings.IsServerGC ? "true" : "false")},"
                          + $"\"latency_mode\":\"{GCSettings.LatencyMode}\",\"gcs\":{gcs}}}");

        // 8,000 nodes of 64 byte[48]: 520,000 objects that every gen2 GC marks, built in chunks of
        // ~260 KB with an induced GC after each (those GCs count towards N too)
        var old = new object[8000][];
        for (int i = 0; i < old.Length; i++)
        {
            old[i] = new object[64];
            for (int j = 0; j < 64; j++)
                old[i][j] = new byte[48];
            if (i % 50 == 49)
                GC.Collect(1, GCCollectionMode.Forced, blocking: true);
        }
        var ring = new object[4096];
        int background = 0, iterations = 0;
        for (int i = 0; GC.CollectionCount(0) < gcs; i++, iterations++)
        {
            // about 20 KB of short-lived objects and 16 survivors, each living ~256 iterations
            for (int k = 0; k < 200; k++)
                s_sink = new byte[64 + (k & 31)];
            for (int k = 0; k < 16; k++)
                ring[(i * 16 + k) & (ring.Length - 1)] = new byte[32 + k * 8];
            old[i % old.Length][i % 64] = new byte[48]; // an old-to-young reference for the card table
            switch (i % 1000)
            {
                case 400:
                    long done = GC.GetGCMemoryInfo(GCKind.Background).Index;
                    GC.Collect(2, GCCollectionMode.Forced, blocking: false);
                    background++;
                    AllocateUntilBackgroundEnds(done, gcs);
                    break;
                case 700:
                    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: false);
                    break;
                case 999:
                    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
                    break;
                default:
                    GC.Collect(i % 8 == 7 ? 1 : 0, GCCollectionMode.Forced, blocking: true);
                    break;
            }
        }
        int[] after = { GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2) };
        GC.KeepAlive(old);
        GC.KeepAlive(ring);
        int total = after[0];
        Console.WriteLine($"{{\"gcs\":{total},\"gen1_or_more\":{after[1]},\"gen2\":{after[2]},"
                          + $"\"background_requested\":{background},\"iterations\":{iterations}}}");
        if (total != gcs)
        {
            Console.Error.WriteLine($"gcev-gcstorm: the runtime ran {total} GCs, not {gcs} (a GC triggered by allocation?)");
            return 1;
        }
        return 0;
    }

    // Allocates 100-byte objects (the gen0 budget runs out, so GCs are triggered inside the
    // background GC) until the background GC that started after the one numbered done has ended,
    // for at most 5 s, and never past the last GC.
    private static void AllocateUntilBackgroundEnds(long done, int gcs)
    {
        var sw = System.Diagnostics.Stopwatch.StartNew();
        while (GC.GetGCMemoryInfo(GCKind.Background).Index == done && sw.ElapsedMilliseconds < 5000
               && GC.CollectionCount(0) < gcs - 100)
        {
            for (int k = 0; k < 2000; k++)
                s_sink = new byte[100];
        }
    }
}
