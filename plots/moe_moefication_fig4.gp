# noisy paper Sec. 5, Figs. 4 and 11 (shape) on a synthetic network closer to App. B.2's setting (E = 96
# experts, s = 20, 40, 60, 80 active): accuracy under noise vs the noise level for the dense net and the
# MoEfied one at each s (left, mean +- standard error over seeds), and the MoEfied net's accuracy gain
# over the dense one, paired over seeds (right: Fig. 11's top row turned into the quantity the paper's
# "sparse models outperform their dense counterparts under noise" is about; above 0 = MoEfied better).
# Usage: gnuplot -e "csv='results/moe_moefication_fig4.csv'; png='results/moe_moefication_fig4.png'" plots/moe_moefication_fig4.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/moe_moefication_fig4.csv'
if (!exists("png")) png = 'results/moe_moefication_fig4.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
title_text = system(sprintf("sed -n 's/^# title: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k}' '%s' | sort -n | uniq | tr '\\n' ' '", name, csv))
first_value(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k; exit}' '%s'", name, csv))
levels = col_values("active")
E = first_value("experts")
purity = first_value("block_purity")

do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1300,550 enhanced font ",11"
  } else {
    set terminal png size 1300,550
  }
  set output png
} else {
  set terminal svg size 1300,550 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title sprintf("%s\nE = %s experts, block purity %.2f; %s", title_text, E, purity + 0, trials_text)
set xlabel "noise standard deviation {/Symbol s}"
set grid
set offsets graph 0.03, graph 0.03, 0, 0
set key bottom left box opaque
set title "test accuracy under noise"
set ylabel "accuracy (%)"
plot for [i = 1:words(levels)] csv using (column("active") == word(levels, i) + 0 ? column("sigma") : 1/0):(100 * column("accuracy")):(100 * column("accuracy_se")) \
       with yerrorlines pt 7 lw (word(levels, i) + 0 == 0 ? 3 : 1.5) lc i \
       title (word(levels, i) + 0 == 0 ? "dense" : sprintf("MoEfied, %s of %s active", word(levels, i), E))
set title "MoEfied - dense accuracy, paired over seeds (> 0: MoEfied better)"
set ylabel "accuracy gain (percentage points)"
set key bottom left box opaque
set xzeroaxis lt -1 lw 1.5
plot for [i = 2:words(levels)] csv using (column("active") == word(levels, i) + 0 ? column("sigma") : 1/0):(100 * column("gain_vs_dense")):(100 * column("gain_vs_dense_se")) \
       with yerrorlines pt 7 lw 1.5 lc i title sprintf("%s of %s active", word(levels, i), E)
unset multiplot
}
