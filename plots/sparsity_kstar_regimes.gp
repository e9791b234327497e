# Optimal sparsity k* vs number of tasks N for several m: Definition 5 as printed vs Theorem 1's k-term.
# Usage: gnuplot -e "csv='results/sparsity_kstar_regimes.csv'; png='results/sparsity_kstar_regimes.png'" plots/sparsity_kstar_regimes.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name (study
# sparsity.kstar: form, N, m, T, a, b, k_star, k_star_real); the values of m, T, a, b and the title
# come from the CSV itself.
if (!exists("csv")) csv = 'results/sparsity_kstar_regimes.csv'
if (!exists("png")) png = 'results/sparsity_kstar_regimes.png'

set encoding utf8
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -1", key, csv))
# Distinct values of a column in order of appearance, and a column's value in the first data row.
distinct(col) = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} !s[$c[\"%s\"]]++{printf \"%%s \", $c[\"%s\"]}' '%s'", col, col, csv))
first(col) = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} {print $c[\"%s\"]; exit}' '%s'", col, csv))
title_text = meta("title")
if (title_text eq "") title_text = sprintf("Optimal number of active experts k* (T = %s)", first("T"))
title_text = sprintf("%s, a = %s, b = %s", title_text, first("a"), first("b"))
ms = distinct("m")
nm = words(ms)
m_label(i) = (abs(log10(word(ms, i) + 0) - floor(log10(word(ms, i) + 0) + 0.5)) < 1e-9) \
             ? sprintf("10^{%d}", floor(log10(word(ms, i) + 0) + 0.5)) : word(ms, i)
T_max = first("T") + 0
is(f, i) = strcol("form") eq f && column("m") == word(ms, i) + 0
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1400,600 enhanced font ",11" } else { set terminal png size 1400,600 }
    set output png
  } else {
    set terminal svg size 1400,600 enhanced font ",11" dynamic background "white"
    set output svg
  }
  set datafile separator comma
  set datafile columnheaders
  set multiplot layout 1, 2 title title_text
  set grid
  set key top left
  set xlabel "number of tasks N"
  set ylabel "k*"
  set yrange [0:1.06 * T_max]
  set title "k-term of Theorem 1 (Eq. 5): interior optimum; k* grows with N and m"
  plot for [i = 1:nm] csv using "N":(is("theorem1", i) ? column("k_star") : 1/0) with linespoints pt 7 ps 0.6 lc i \
         title sprintf("m = %s (integer k*)", m_label(i)), \
       for [i = 1:nm] csv using "N":(is("theorem1", i) ? column("k_star_real") : 1/0) with lines dt 2 lc i notitle
  set key bottom right
  # Definition 5 as printed gives k* = T at every (N, m) (one line stands for all m, drawn from the
  # first m's rows); the same definition with log(eT/k) has a genuine trade-off.
  set title "Definition 5: as printed k* = T for every N and m (E_{est}(T) = 0); with log(eT/k), a trade-off"
  plot csv using "N":(is("definition5", 1) ? column("k_star") : 1/0) with lines lw 3 lc rgb "#444444" \
         title sprintf("as printed: k* = T = %d for every m", T_max), \
       for [i = 1:nm] csv using "N":(is("definition5_e", i) ? column("k_star") : 1/0) with linespoints pt 7 ps 0.6 lc i \
         title sprintf("log(eT/k): m = %s", m_label(i))
  unset multiplot
}
