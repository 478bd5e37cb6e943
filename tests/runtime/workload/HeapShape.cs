// SPDX-License-Identifier: MIT
// heapshape (issue 25): a heap of known shape for `gcev heap`, held until 'stop' on stdin
// (or end of input): a complete binary tree of HsNode (depth 10: 1023 nodes, each with one
// HsPayload) under a static, HsStatic objects in three static fields, an HsStrong under a
// strong GC handle, a long[1234] under a pinned handle, five HsKey -> HsValue pairs in a
// ConditionalWeakTable (the keys held by a static array), ten finalizable HsFinal, a
// byte[100000] in the LOH and a long[2000] in the POH. Prints {"event":"ready","pid":P}
// once built; tests/heap/heapshape.sh captures a heap dump then and checks the shape.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

#pragma warning disable CS0649 // the fields give the objects their size; nothing reads them

internal sealed class HsPayload { public long A, B, C, D; }
internal sealed class HsNode { public HsNode? Left, Right; public HsPayload Data = new(); }
internal sealed class HsStatic { public long V; }
internal sealed class HsStrong { public long V; }
internal sealed class HsKey { public int K; }
internal sealed class HsValue { public long A, B; }
internal sealed class HsFinal
{
    public long V;
    ~HsFinal() { V = 0; }
}

internal static class HeapShape
{
    private static HsNode? s_tree;
    private static HsStatic? s_heldA, s_heldB, s_heldC;
    private static HsKey[]? s_keys;
    private static ConditionalWeakTable<HsKey, HsValue>? s_cwt;
    private static List<HsFinal>? s_finals;
    private static byte[]? s_loh;
    private static long[]? s_poh;

    private static HsNode Tree(int depth) =>
        depth == 0 ? new HsNode() : new HsNode { Left = Tree(depth - 1), Right = Tree(depth - 1) };

    public static void Run()
    {
        // built in a frame of its own, gone before the dump: no stack slot of it holds anything
        var (strong, pinned) = Build();
        GC.Collect();
        Console.WriteLine($"{{\"event\":\"ready\",\"pid\":{Environment.ProcessId}}}");
        Console.Out.Flush();
        while (Console.ReadLine() is string line && line != "stop")
        {
        }
        GC.KeepAlive(s_tree);
        strong.Free();
        pinned.Free();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static (GCHandle, GCHandle) Build()
    {
        s_tree = Tree(9); // 2^10 - 1 = 1023 nodes
        s_heldA = new HsStatic();
        s_heldB = new HsStatic();
        s_heldC = new HsStatic();
        var strong = GCHandle.Alloc(new HsStrong(), GCHandleType.Normal);
        var pinned = GCHandle.Alloc(new long[1234], GCHandleType.Pinned);
        s_keys = new HsKey[5];
        s_cwt = new ConditionalWeakTable<HsKey, HsValue>();
        for (int i = 0; i < 5; i++)
        {
            s_keys[i] = new HsKey { K = i };
            s_cwt.Add(s_keys[i], new HsValue());
        }
        s_finals = new List<HsFinal>();
        for (int i = 0; i < 10; i++)
            s_finals.Add(new HsFinal());
        s_loh = new byte[100_000];
        s_poh = GC.AllocateArray<long>(2000, pinned: true);
        return (strong, pinned);
    }
}
