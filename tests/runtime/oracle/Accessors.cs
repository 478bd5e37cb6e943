// SPDX-License-Identifier: MIT
// The values TraceEvent gives for one event: PayloadNames/PayloadValue for the scalars, and its
// typed accessors for struct arrays (found by reflection on the event's class, so a TraceEvent
// upgrade that adds an accessor is seen, and one the oracle does not know stops it).
using System.Reflection;
using Microsoft.Diagnostics.Tracing;

namespace Gcev.Oracle;

internal static class Accessors
{
    // Indexed accessor -> the property holding its element count (ClrTraceEventParser.cs):
    // Values(int) on the GCBulk* and BulkType classes, Info(int) on GCLOHCompactTraceData,
    // Buckets(int) on GCFitBucketInfoTraceData, GenData(Gens) on GCPerHeapHistoryTraceData,
    // TypeParameterID(int) on GCBulkTypeValues.
    private static readonly Dictionary<string, string> CountOf = new()
    {
        ["Values"] = "Count",
        ["Info"] = "Count",
        ["Buckets"] = "Count",
        ["GenData"] = "NumGenerations",
        ["TypeParameterID"] = "TypeParameterCount",
    };

    private sealed class Shape
    {
        public required PropertyInfo[] ArrayProps;   // e.g. GCGlobalHeapHistory Times (int[])
        public required (MethodInfo M, PropertyInfo Count, Type Arg)[] Indexed;
    }

    private static readonly Dictionary<Type, Shape> Shapes = new();
    private static readonly Dictionary<Type, (PropertyInfo[] Props, (MethodInfo M, PropertyInfo Count, Type Arg)[] Indexed)> Elements = new();

    public static object? Safe(Func<object?> f)
    {
        try
        {
            return f();
        }
        catch (TargetInvocationException e)
        {
            return "exception:" + (e.InnerException?.GetType().Name ?? e.GetType().Name);
        }
        catch (Exception e)
        {
            return "exception:" + e.GetType().Name;
        }
    }

    private static (MethodInfo, PropertyInfo, Type)[] IndexedMethods(Type t)
    {
        var list = new List<(MethodInfo, PropertyInfo, Type)>();
        foreach (var m in t.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly))
        {
            var ps = m.GetParameters();
            if (m.IsSpecialName || ps.Length != 1 || m.ReturnType == typeof(void))
                continue;
            var pt = ps[0].ParameterType;
            if (pt != typeof(int) && !pt.IsEnum)
                continue;
            if (m.Name is "PayloadValue" or "PayloadString" or "Equals")
                continue;
            if (!CountOf.TryGetValue(m.Name, out var countName))
                throw new InvalidOperationException($"{t.Name}.{m.Name}({pt.Name}): an indexed accessor the oracle does not know the count of");
            var cp = t.GetProperty(countName, BindingFlags.Public | BindingFlags.Instance)
                     ?? throw new InvalidOperationException($"{t.Name}: no {countName} property for {m.Name}");
            list.Add((m, cp, pt));
        }
        return list.OrderBy(x => x.Item1.Name, StringComparer.Ordinal).ToArray();
    }

    private static Shape ShapeOf(Type t, string[] payloadNames)
    {
        lock (Shapes)
        {
            if (Shapes.TryGetValue(t, out var s))
                return s;
            var arrays = t.GetProperties(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly)
                .Where(p => p.PropertyType.IsArray && p.GetIndexParameters().Length == 0 && !payloadNames.Contains(p.Name)
                            && p.Name != "PayloadNames")
                .OrderBy(p => p.Name, StringComparer.Ordinal).ToArray();
            s = new Shape { ArrayProps = arrays, Indexed = IndexedMethods(t) };
            Shapes[t] = s;
            return s;
        }
    }

    private static (PropertyInfo[], (MethodInfo, PropertyInfo, Type)[]) ElementOf(Type t)
    {
        lock (Elements)
        {
            if (Elements.TryGetValue(t, out var e))
                return e;
            var props = t.GetProperties(BindingFlags.Public | BindingFlags.Instance)
                .Where(p => p.GetIndexParameters().Length == 0 && p.DeclaringType != typeof(object))
                .ToArray(); // declaration order
            e = (props, IndexedMethods(t));
            Elements[t] = e;
            return e;
        }
    }

    // Fields TraceEvent reads in full but gives as a derived value that does not show every bit
    // (so flipping some of their bytes changes nothing it returns), or does not read. For these the oracle also
    // gives the raw value, read with TraceEvent's own GetInt32At at TraceEvent's own offset
    // (HostOffset(o, p) = o + p * (PointerSize - 4)), as "raw" members:
    // GCPerHeapHistoryTraceData (ClrTraceEventParser.cs): CompactMechanisms and ExpandMechanisms
    // return IndexOfSetBit(GetInt32At(HostOffset(38, 6) / HostOffset(42, 6))) (the index of the
    // lowest set bit, not_specified past the enum's count); HeapIndex reads GetInt32At(HostOffset(46, 6))
    // and gives 0 when that is negative (so its top byte moves nothing while the value is small).
    // Also fields TraceEvent does not read at all, read the same way (width 2 or 4 bytes), given
    // only when the payload holds them:
    // - BGCOverflow_V1 appends GenNumber (UInt32 after ClrInstanceID at 28); ClrPrivateTraceEventParser.cs
    //   BGCOverflowTraceData stops at ClrInstanceID.
    // - The private BGC events (BGCBegin ... BGC2ndConEnd, ids 11-17, version 0) carry ClrInstanceID
    //   (2 bytes); TraceEvent parses them as GCNoUserDataTraceData, whose ClrInstanceID exists only
    //   for Version >= 1 (ClrTraceEventParser.cs GCNoUserDataTraceData).
    private static readonly (string Type, int MinVersion, int MaxVersion, string Name, int Offset, int Pointers, int Width)[] Lossy =
    {
        ("GCPerHeapHistoryTraceData", 3, int.MaxValue, "CompactMechanisms", 38, 6, 4),
        ("GCPerHeapHistoryTraceData", 3, int.MaxValue, "ExpandMechanisms", 42, 6, 4),
        ("GCPerHeapHistoryTraceData", 3, int.MaxValue, "HeapIndex", 46, 6, 4),
        ("BGCOverflowTraceData", 1, int.MaxValue, "GenNumber", 30, 0, 4),
        ("GCNoUserDataTraceData", 0, 0, "ClrInstanceID", 0, 0, 2),
    };

    private static readonly MethodInfo GetInt32At = typeof(TraceEvent).GetMethod("GetInt32At",
        BindingFlags.NonPublic | BindingFlags.Instance, new[] { typeof(int) })
        ?? throw new InvalidOperationException("TraceEvent.GetInt32At(int) not found");
    private static readonly MethodInfo GetInt16At = typeof(TraceEvent).GetMethod("GetInt16At",
        BindingFlags.NonPublic | BindingFlags.Instance, new[] { typeof(int) })
        ?? throw new InvalidOperationException("TraceEvent.GetInt16At(int) not found");

    // GCDynamicEvent (GCDynamicTraceEventParser.cs): TraceEvent parses the outer layout once
    // (GCDynamicTraceEventImpl.FixupData caches Name/DataSize/offsets) and, for a known inner
    // event (CommittedUsage), gives only the inner fields as PayloadNames and rewrites the event
    // id to its template's (TraceEventID.Illegal - 11). The outer fields come from the impl's own
    // internal accessors Name, DataSize, Data, ClrInstanceID.
    public const string DynamicImpl = "GCDynamicTraceEventImpl";
    private static readonly string[] DynamicOuter = { "Name", "DataSize", "Data", "ClrInstanceID" };

    /// <summary>Re-runs TraceEvent's payload fix-up of events that cache their layout.</summary>
    public static void Refix(TraceEvent data)
    {
        if (data.GetType().Name != DynamicImpl)
            return;
        data.GetType().GetMethod("FixupData", BindingFlags.NonPublic | BindingFlags.Instance)!.Invoke(data, null);
    }

    private static object Arg(Type t, int i) => t == typeof(int) ? i : Enum.ToObject(t, i);

    /// <summary>The getters of one event, scalars first (in PayloadNames order), then arrays.</summary>
    public static List<Getter> For(TraceEvent data)
    {
        var list = new List<Getter>();
        string[] names = data.PayloadNames ?? Array.Empty<string>();
        bool dynamic = data.GetType().Name == DynamicImpl;
        if (dynamic)
        {
            foreach (var n in DynamicOuter)
            {
                var prop = data.GetType().GetProperty(n, BindingFlags.NonPublic | BindingFlags.Instance)
                           ?? throw new InvalidOperationException($"{DynamicImpl}.{n} not found");
                list.Add(new Getter { Array = "", Index = -1, Name = n, Get = () => prop.GetValue(data) });
            }
        }
        for (int j = 0; j < names.Length; j++)
        {
            int jj = j;
            if (dynamic && DynamicOuter.Contains(names[j]))
                continue; // the outer layout, already there
            list.Add(new Getter { Array = "", Dynamic = dynamic, Index = -1, Name = names[j], Get = () => data.PayloadValue(jj) });
        }
        list.Sort((a, b) => a.Dynamic.CompareTo(b.Dynamic)); // stable enough: two groups in order
        foreach (var (type, minVersion, maxVersion, name, offset, pointers, width) in Lossy)
        {
            if (data.GetType().Name != type || data.Version < minVersion || data.Version > maxVersion)
                continue;
            int at = offset + pointers * (data.PointerSize - 4);
            if (data.EventDataLength < at + width)
                continue;
            var reader = width == 2 ? GetInt16At : GetInt32At;
            list.Add(new Getter { Array = "", Raw = true, Index = -1, Name = name, Get = () => reader.Invoke(data, new object[] { at }) });
        }
        var shape = ShapeOf(data.GetType(), names);
        foreach (var p in shape.ArrayProps)
        {
            var pp = p;
            list.Add(new Getter { Array = "", Index = -1, Name = p.Name, Get = () => pp.GetValue(data) });
        }
        foreach (var (m, countProp, argType) in shape.Indexed)
        {
            int count = Convert.ToInt32(countProp.GetValue(data), System.Globalization.CultureInfo.InvariantCulture);
            for (int i = 0; i < count; i++)
            {
                object arg = Arg(argType, i);
                var mm = m;
                object? elem = Safe(() => mm.Invoke(data, new[] { arg }));
                if (elem == null || elem is string)
                    continue;
                var (props, nested) = ElementOf(elem.GetType());
                int ii = i;
                foreach (var p in props)
                {
                    var pp = p;
                    list.Add(new Getter { Array = m.Name, Index = ii, Name = p.Name, Get = () => pp.GetValue(mm.Invoke(data, new[] { arg })) });
                }
                foreach (var (nm, ncount, nargType) in nested)
                {
                    var nmm = nm;
                    var nc = ncount;
                    var nat = nargType;
                    list.Add(new Getter
                    {
                        Array = m.Name, Index = ii, Name = nm.Name,
                        Get = () =>
                        {
                            object e = mm.Invoke(data, new[] { arg })!;
                            int n = Convert.ToInt32(nc.GetValue(e), System.Globalization.CultureInfo.InvariantCulture);
                            var vals = new object?[n];
                            for (int q = 0; q < n; q++)
                                vals[q] = nmm.Invoke(e, new[] { Arg(nat, q) });
                            return vals;
                        },
                    });
                }
            }
        }
        return list;
    }
}
